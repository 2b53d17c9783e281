#ifndef REVLINE_VERSION_H
#define REVLINE_VERSION_H

#include <stdbool.h>
#include <stddef.h>

#include "deps.h"

/*
 * Versions as each ecosystem orders them: SemVer 2.0.0 for npm, Cargo and
 * Go (Go's with its "v" prefix, "+incompatible" being build metadata),
 * PEP 440 for PyPI (epochs "1!2.0", pre-releases a < b < rc with their
 * spellings, implicit post releases "1.0-1", dev releases, local versions),
 * Gem::Version for RubyGems (segments of digits and of letters, a letter
 * segment making a pre-release, "-" read as ".pre."). Every numeric
 * component counts: 6.1.4.1 is before 6.1.4.2. Pure functions over text.
 */
#define VERSION_PARTS_MAX 16

struct version {
	enum deps_ecosystem eco;
	/*
	 * The version as the manifest writes it, without its operator, a "v"
	 * before the first digit or a trailing wildcard: what OSV is asked
	 * about and what is shown ("6.1.4.1", "1.0rc1", "7.1.0.beta1"). SemVer
	 * ecosystems' is filled out to three components without build
	 * metadata ("^1.2" -> "1.2.0", "4.x" -> "4.0.0", "v2.0.0+incompatible"
	 * -> "2.0.0"), as their advisory databases name versions.
	 */
	char text[DEPS_SPEC_MAX + 1];
	long epoch;                     /* PEP 440's "N!", else 0 */
	long part[VERSION_PARTS_MAX];   /* the release's numbers ("6.1.4.1": 6 1 4 1) */
	size_t nparts;
	size_t pre;                     /* SemVer: where the pre-release starts in text (its length if none) */
};

/*
 * The version a spec names in its ecosystem: of its lower bounds (a bare
 * version, "^", "~", "~>", ">=", ">", "==", "~=", "="), the largest
 * ("~> 7.1, >= 7.1.2" -> 7.1.2); upper bounds and exclusions ("<", "<=",
 * "!=", the far end of "1.2.3 - 2.3.4") are passed over, and of
 * alternatives ("^1 || ^2") the first is read; a word that is no version
 * of the ecosystem ("x" in "2.0.0 | x") is passed over. npm's aliases
 * ("npm:name@^1.2") and pnpm's "workspace:" are looked through. False when
 * no lower bound is read.
 */
bool version_parse(struct version *out, enum deps_ecosystem eco, const char *spec);
/* One version's text (no operator), len bytes. */
bool version_read(struct version *out, enum deps_ecosystem eco, const char *text, size_t len);
/* <0, 0, >0 as a's ecosystem orders them (both of one ecosystem). */
int version_compare(const struct version *a, const struct version *b);
/*
 * How far a -> b goes, by the first release component that differs:
 * the first major, the second minor, any later one patch; below 1.0.0
 * the first non-zero component counts as the major one (what caret ranges
 * of npm and Cargo treat as breaking); a change of epoch is major; a
 * change of pre-release, post or dev release alone is patch.
 */
enum deps_bump version_distance(const struct version *a, const struct version *b);

#endif
