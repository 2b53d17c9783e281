/* The dependency analysis and the chosen timeout in the reports of `revline check`. */
#include "report.h"
#include "depreview.h"
#include "term.h"
#include "timeout.h"
#include "utf8.h"

#include <jansson.h>
#include <string.h>

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static size_t open_advisories(const struct deps_package *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nadvisories; i++)
		n += !p->advisories[i].fixed;
	return n;
}

static void ecosystems_text(FILE *out, unsigned ecosystems)
{
	const char *sep = "";
	int i;

	for (i = 0; i < ECO_COUNT; i++)
		if (ecosystems & (1u << i)) {
			fprintf(out, "%s%s", sep, deps_ecosystem_name((enum deps_ecosystem)i));
			sep = ", ";
		}
}

/*
 * Names, versions, advisories and problems come from manifests and from
 * OSV: the text and markdown write them through term_*, the JSON through
 * utf8_json (a manifest's invalid UTF-8 would make jansson drop the value).
 */

/* "Dependencies (npm, go; a dependabot change, dependencies only)". */
static void heading(FILE *out, const struct deps_analysis *a, const char *open, const char *close)
{
	fprintf(out, "%sDependencies", open);
	if (a->ecosystems || a->bot || a->dependency_only) {
		fputs(" (", out);
		ecosystems_text(out, a->ecosystems);
		if (a->bot)
			term_printf(out, "%sa %s change", a->ecosystems ? "; " : "", a->bot);
		if (a->dependency_only)
			fprintf(out, "%sdependencies only", a->ecosystems || a->bot ? "; " : "");
		fputc(')', out);
	}
	fprintf(out, "%s\n", close);
}

void report_text_deps(FILE *out, const struct check *check)
{
	const struct depreview *dr = check_deps(check);
	const struct deps_analysis *a;
	size_t i, k;

	if (!dr || !depreview_found(dr))
		return;
	a = depreview_analysis(dr);
	heading(out, a, "", "");
	for (i = 0; i < a->npackages; i++) {
		const struct deps_package *p = &a->packages[i];

		fputs("  ", out);
		term_pad(out, p->name, 24);
		term_printf(out, " %-8s %s -> %s  %s%s%s", deps_ecosystem_name(p->ecosystem), or_dash(p->from),
			    or_dash(p->to), deps_bump_name(p->bump), p->breaking ? "  breaking" : "",
			    p->downgrade ? "  downgrade" : "");
		if (p->relation != RELATION_DIRECT)
			term_printf(out, "  %s%s%s%s", deps_relation_name(p->relation), p->via ? " (via " : "",
				    p->via ? p->via : "", p->via ? ")" : "");
		fputc('\n', out);
		if (p->claimed)
			term_printf(out, "    the commit message says %s; %s says otherwise\n", p->claimed,
				    or_dash(p->lock ? p->lock : p->manifest));
		for (k = 0; k < p->nadvisories; k++)
			term_printf(out, "    %s (%s, %s): %s\n", p->advisories[k].id,
				    or_dash(p->advisories[k].severity),
				    deps_advisory_effect(&p->advisories[k]),
				    or_dash(p->advisories[k].summary));
	}
	for (i = 0; i < a->nproblems; i++)
		term_printf(out, "  %s\n", a->problems[i]);
	for (i = 0; i < a->nclaims; i++)
		term_printf(out, "  %s\n", a->claims[i]);
	term_printf(out, "  merge confidence: %s (%s)\n", deps_confidence_name(a->confidence), or_dash(a->reason));
	if (depreview_error(dr))
		term_printf(out, "  advisories: %s\n", depreview_error(dr));
	else if (a->npackages)
		fprintf(out, "  advisories: %zu package%s looked up in OSV\n", depreview_checked(dr),
			depreview_checked(dr) == 1 ? "" : "s");
	fputc('\n', out);
}

void report_markdown_deps(FILE *out, const struct check *check)
{
	const struct depreview *dr = check_deps(check);
	const struct deps_analysis *a;
	size_t i, k;

	if (!dr || !depreview_found(dr))
		return;
	a = depreview_analysis(dr);
	heading(out, a, "### ", "\n");
	if (a->npackages) {
		fputs("| Package | Ecosystem | From | To | Bump | Advisories | Breaking |\n"
		      "|---|---|---|---|---|---|---|\n", out);
		for (i = 0; i < a->npackages; i++) {
			const struct deps_package *p = &a->packages[i];

			fputs("| `", out);
			term_md_cell(out, p->name);
			fputs("`", out);
			if (p->relation != RELATION_DIRECT) {
				fprintf(out, " (%s", deps_relation_name(p->relation));
				if (p->via) {
					fputs(", via `", out);
					term_md_cell(out, p->via);
					fputc('`', out);
				}
				fputc(')', out);
			}
			fprintf(out, " | %s | ", deps_ecosystem_name(p->ecosystem));
			term_md_cell(out, or_dash(p->from));
			fputs(" | ", out);
			term_md_cell(out, or_dash(p->to));
			fprintf(out, " | %s | %zu", deps_bump_name(p->bump), p->nadvisories);
			if (p->nadvisories)
				fprintf(out, " (%zu open)", open_advisories(p));
			fprintf(out, " | %s |\n", p->breaking ? "**yes**" : "no");
		}
		fputc('\n', out);
	}
	for (i = 0; i < a->npackages; i++)
		for (k = 0; k < a->packages[i].nadvisories; k++) {
			const struct deps_advisory *v = &a->packages[i].advisories[k];

			term_printf(out, "- **%s** in `%s` (%s, %s): %s\n", v->id, a->packages[i].name,
				    or_dash(v->severity), deps_advisory_effect(v),
				    or_dash(v->summary));
		}
	for (i = 0; i < a->nproblems; i++)
		term_printf(out, "- %s\n", a->problems[i]);
	for (i = 0; i < a->npackages; i++)
		if (a->packages[i].claimed)
			term_printf(out, "- `%s`: the commit message says %s; the lock file says otherwise\n",
				    a->packages[i].name, a->packages[i].claimed);
	for (i = 0; i < a->nclaims; i++)
		term_printf(out, "- %s\n", a->claims[i]);
	term_printf(out, "%sMerge confidence: **%s** (%s)\n", a->npackages || a->nproblems ? "\n" : "",
		    deps_confidence_name(a->confidence), or_dash(a->reason));
	if (depreview_error(dr))
		term_printf(out, "\n<sub>%s</sub>\n", depreview_error(dr));
	fputc('\n', out);
}

static json_t *package_json(const struct deps_package *p)
{
	json_t *advisories = json_array();
	size_t k;

	for (k = 0; k < p->nadvisories; k++)
		json_array_append_new(advisories, json_pack("{s:o, s:o, s:o, s:b, s:b}", "id",
							    utf8_json(p->advisories[k].id), "summary",
							    utf8_json(p->advisories[k].summary), "severity",
							    utf8_json(p->advisories[k].severity ? p->advisories[k].severity :
								      "unknown"),
							    "fixed", p->advisories[k].fixed, "introduced",
							    p->advisories[k].introduced));
	return json_pack("{s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:s, s:b, s:b, s:o, s:s, s:o, s:o, s:o}", "name",
			 utf8_json(p->name), "ecosystem", deps_ecosystem_name(p->ecosystem), "manifest",
			 utf8_json(p->manifest), "from", utf8_json(p->from), "to", utf8_json(p->to), "from_version",
			 utf8_json(p->from_version), "to_version", utf8_json(p->to_version),
			 "bump", deps_bump_name(p->bump), "breaking", p->breaking, "downgrade", p->downgrade,
			 "advisories", advisories, "relation", deps_relation_name(p->relation), "via",
			 utf8_json(p->via), "lock", utf8_json(p->lock), "claimed", utf8_json(p->claimed));
}

json_t *report_json_deps(const struct check *check)
{
	const struct depreview *dr = check_deps(check);
	const struct deps_analysis *a;
	json_t *packages, *ecosystems, *problems, *claims;
	size_t i;
	int e;

	if (!dr || !depreview_found(dr))
		return json_null();
	a = depreview_analysis(dr);
	packages = json_array();
	ecosystems = json_array();
	problems = json_array();
	claims = json_array();
	for (i = 0; i < a->nclaims; i++)
		json_array_append_new(claims, utf8_json(a->claims[i]));
	for (i = 0; i < a->nproblems; i++)
		json_array_append_new(problems, utf8_json(a->problems[i]));
	for (i = 0; i < a->npackages; i++)
		json_array_append_new(packages, package_json(&a->packages[i]));
	for (e = 0; e < ECO_COUNT; e++)
		if (a->ecosystems & (1u << e))
			json_array_append_new(ecosystems, json_string(deps_ecosystem_name((enum deps_ecosystem)e)));
	return json_pack("{s:o, s:o, s:b, s:o, s:o, s:o, s:s, s:o, s:I, s:o}", "ecosystems", ecosystems,
			 "bot", utf8_json(a->bot), "dependency_only", a->dependency_only, "packages", packages,
			 "problems", problems, "claims", claims, "merge_confidence", deps_confidence_name(a->confidence),
			 "reason", utf8_json(a->reason), "advisories_checked", (json_int_t)depreview_checked(dr),
			 "advisories_error", utf8_json(depreview_error(dr)));
}

json_t *report_json_timeout(const struct check *check)
{
	const struct timeout_choice *t = check_timeout_choice(check);

	return json_pack("{s:f, s:f, s:s}", "base_s", t->base, "chosen_s", t->chosen, "reason", t->reason);
}
