/* The adaptive timeout: the base of a check's requests from the size and kind of the change. */
#include "timeout.h"

#include <stdio.h>

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* How far past small toward large the change is, 0 to 1, by files or lines, whichever is further. */
static double largeness(size_t files, size_t lines)
{
	double by_files = ((double)files - TIMEOUT_SMALL_FILES) / (TIMEOUT_LARGE_FILES - TIMEOUT_SMALL_FILES);
	double by_lines = ((double)lines - TIMEOUT_SMALL_LINES) / (TIMEOUT_LARGE_LINES - TIMEOUT_SMALL_LINES);

	return clamp01(by_files > by_lines ? by_files : by_lines);
}

/* A base over the ceiling is cut to it, and the reason says so. */
static bool over_ceiling(struct timeout_choice *out, double base)
{
	if (base <= TIMEOUT_LARGE_CAP)
		return false;
	out->chosen = TIMEOUT_LARGE_CAP;
	snprintf(out->reason, sizeof(out->reason), "the base %.0f s is over the ceiling: %.0f s",
		 base, TIMEOUT_LARGE_CAP);
	return true;
}

void timeout_choose(struct timeout_choice *out, double base, size_t files, size_t lines,
		    bool dependency_only)
{
	double factor, chosen;

	out->base = base;
	if (dependency_only) {
		chosen = base / 2 < TIMEOUT_DEPS_FLOOR ? TIMEOUT_DEPS_FLOOR : base / 2;
		chosen = chosen > base ? base : chosen;
		out->chosen = chosen > TIMEOUT_LARGE_CAP ? TIMEOUT_LARGE_CAP : chosen;
		snprintf(out->reason, sizeof(out->reason), "dependency-only change: %.0f s of the base %.0f s",
			 out->chosen, base);
		return;
	}
	if (over_ceiling(out, base))
		return;
	if (files <= TIMEOUT_SMALL_FILES && lines <= TIMEOUT_SMALL_LINES) {
		out->chosen = base;
		snprintf(out->reason, sizeof(out->reason), "%zu file%s, %zu changed line%s: the base %.0f s",
			 files, files == 1 ? "" : "s", lines, lines == 1 ? "" : "s", base);
		return;
	}
	factor = 1 + (TIMEOUT_LARGE_FACTOR - 1) * largeness(files, lines);
	chosen = base * factor;
	out->chosen = chosen > TIMEOUT_LARGE_CAP ? TIMEOUT_LARGE_CAP : chosen;
	snprintf(out->reason, sizeof(out->reason), "%zu files, %zu changed lines: %.2f x the base %.0f s",
		 files, lines, out->chosen / base, base);
}
