/*
 * The dependency section of the map prompt: the table (each package's
 * relation, transitive ones with the direct dependency that pulls them
 * in), the advisories (transitive ones grouped under that dependency),
 * what a bot's message claims that the lock files do not show, and the
 * merge confidence. Bounded: past PROMPT_ROWS rows, transitive packages
 * without an advisory or a major bump are counted, not listed.
 */
#include "deps.h"
#include "deps_text.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define PROMPT_ROWS 60


/* Text on one line of markdown: line breaks and control characters become spaces; in a cell, pipes are escaped. */
static int put_text(struct buf *out, const char *s, bool cell)
{
	int error = 0;

	if (!s || !*s)
		return buf_puts(out, cell ? "-" : "");
	for (; *s && !error; s++) {
		if (cell && *s == '|')
			error = buf_puts(out, "\\|");
		else
			error = buf_putc(out, (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s);
	}
	return error;
}

/* "bumps 2 dependencies, adds 1 and removes 1" */
static int put_counts(struct buf *out, const struct deps_analysis *an)
{
	static const char *const verbs[] = { "bumps", "adds", "removes" };
	size_t count[3] = { 0, 0, 0 }, i, parts = 0, done = 0;
	int error = 0;

	for (i = 0; i < an->npackages; i++)
		count[an->packages[i].bump == BUMP_ADDED ? 1 : an->packages[i].bump == BUMP_REMOVED ? 2 : 0]++;
	for (i = 0; i < 3; i++)
		parts += count[i] > 0;
	for (i = 0; i < 3 && !error; i++) {
		if (!count[i])
			continue;
		error = buf_printf(out, "%s%s %zu%s", !done ? "" : done + 1 == parts ? " and " : ", ", verbs[i],
				   count[i], done ? "" : count[i] == 1 ? " dependency" : " dependencies");
		done++;
	}
	return error;
}

static int put_ecosystems(struct buf *out, const struct deps_analysis *an)
{
	bool seen[ECO_COUNT] = { false };
	size_t i, n = 0;
	int error = 0;

	for (i = 0; i < an->npackages; i++)
		if ((unsigned)an->packages[i].ecosystem < ECO_COUNT)
			seen[an->packages[i].ecosystem] = true;
	for (i = 0; i < ECO_COUNT && !error; i++)
		if (seen[i])
			error = buf_printf(out, "%s%s", n++ ? ", " : " (",
					   deps_ecosystem_name((enum deps_ecosystem)i));
	if (!error && n)
		error = buf_putc(out, ')');
	return error;
}

/* "none", "1 fixed", "2 brought, 1 open": fixed by the bump, brought by it, still open. */
static int put_advisory_count(struct buf *out, const struct deps_package *p)
{
	size_t i, n[3] = { 0, 0, 0 };
	static const char *const names[3] = { "fixed", "brought", "open" };
	const char *sep = "";
	int error = 0, k;

	if (!p->nadvisories)
		return buf_puts(out, "none");
	for (i = 0; i < p->nadvisories; i++)
		n[p->advisories[i].fixed ? 0 : p->advisories[i].introduced ? 1 : 2]++;
	for (k = 0; k < 3 && !error; k++)
		if (n[k]) {
			error = buf_printf(out, "%s%zu %s", sep, n[k], names[k]);
			sep = ", ";
		}
	return error;
}

/* "direct", "transitive (via express)", "unknown" */
static int put_relation(struct buf *out, const struct deps_package *p, bool cell)
{
	int error = buf_puts(out, deps_relation_name(p->relation));

	if (!error && p->relation == RELATION_TRANSITIVE && p->via && !(error = buf_puts(out, " (via ")) &&
	    !(error = put_text(out, p->via, cell)))
		error = buf_putc(out, ')');
	return error;
}

static int put_row(struct buf *out, const struct deps_package *p)
{
	int error;

	if ((error = buf_puts(out, "| ")) < 0 || (error = put_text(out, p->name, true)) < 0 ||
	    (error = buf_puts(out, " | ")) < 0 || (error = put_relation(out, p, true)) < 0 ||
	    (error = buf_printf(out, " | %s | ", deps_ecosystem_name(p->ecosystem))) < 0 ||
	    (error = put_text(out, p->from, true)) < 0 || (error = buf_puts(out, " | ")) < 0 ||
	    (error = put_text(out, p->to, true)) < 0 ||
	    (error = buf_printf(out, " | %s%s | ", deps_bump_name(p->bump),
				p->downgrade ? " (downgrade)" : "")) < 0 ||
	    (error = put_advisory_count(out, p)) < 0)
		return error;
	return buf_printf(out, " | %s |\n", p->breaking ? "yes" : "no");
}

static int put_advisory(struct buf *out, const char *indent, const struct deps_package *p,
			const struct deps_advisory *adv)
{
	/* The version it affects: the old one for an advisory the bump fixes. */
	const char *affected = adv->fixed && p->from_version ? p->from_version : p->to_version ? p->to_version
												: p->from_version;
	int error;

	if ((error = buf_printf(out, "%s- ", indent)) < 0 || (error = put_text(out, adv->id, false)) < 0 ||
	    (error = buf_puts(out, " in ")) < 0 || (error = put_text(out, p->name, false)) < 0 ||
	    (error = buf_printf(out, " %s (%s, %s): ", affected ? affected : "",
				adv->severity ? adv->severity : "unknown", deps_advisory_effect(adv))) < 0 ||
	    (error = put_text(out, adv->summary, false)) < 0)
		return error;
	return buf_putc(out, '\n');
}

static bool grouped(const struct deps_package *p)
{
	return p->relation == RELATION_TRANSITIVE;
}

/* The direct packages' advisories, then the transitive ones' under the direct dependency that pulls them in. */
static int put_advisories(struct buf *out, const struct deps_analysis *an)
{
	const struct deps_package *p, *q;
	size_t i, j, k;
	bool any = false, seen;
	int error = 0;

	for (i = 0; i < an->npackages && !error; i++)
		for (p = &an->packages[i], k = 0; !grouped(p) && k < p->nadvisories && !error; k++) {
			if (!any && (error = buf_puts(out, "\nAdvisories:\n\n")) < 0)
				break;
			any = true;
			error = put_advisory(out, "", p, &p->advisories[k]);
		}
	for (i = 0; i < an->npackages && !error; i++) {
		p = &an->packages[i];
		if (!grouped(p) || !p->nadvisories)
			continue;
		/* Each group once, at its first package with an advisory. */
		for (seen = false, j = 0; j < i && !seen; j++)
			seen = grouped(&an->packages[j]) && an->packages[j].nadvisories &&
			       !strcmp(an->packages[j].via ? an->packages[j].via : "", p->via ? p->via : "");
		if (seen)
			continue;
		if (!any && (error = buf_puts(out, "\nAdvisories:\n\n")) < 0)
			break;
		any = true;
		if ((error = buf_puts(out, "- transitive, via ")) < 0 ||
		    (error = put_text(out, p->via ? p->via : "a dependency the lock file does not name", false)) < 0 ||
		    (error = buf_puts(out, ":\n")) < 0)
			break;
		for (j = i; j < an->npackages && !error; j++)
			for (q = &an->packages[j], k = 0; grouped(q) && k < q->nadvisories && !error; k++)
				if (!strcmp(q->via ? q->via : "", p->via ? p->via : ""))
					error = put_advisory(out, "  ", q, &q->advisories[k]);
	}
	return error;
}

/* What a bot's message said that the lock files do not bear out. */
static int put_claims(struct buf *out, const struct deps_analysis *an)
{
	size_t i, n = an->nclaims;
	int error = 0;

	for (i = 0; i < an->npackages; i++)
		n += an->packages[i].claimed != NULL;
	if (!n)
		return 0;
	if ((error = buf_puts(out, "\nThe commit messages claim otherwise than the lock files; the lock files are "
				  "right:\n\n")) < 0)
		return error;
	for (i = 0; i < an->npackages && !error; i++) {
		const struct deps_package *p = &an->packages[i];

		if (!p->claimed)
			continue;
		if ((error = buf_puts(out, "- ")) < 0 || (error = put_text(out, p->name, false)) < 0 ||
		    (error = buf_puts(out, ": the message says ")) < 0 || (error = put_text(out, p->claimed, false)) < 0 ||
		    (error = buf_printf(out, "; %s has %s -> %s\n", p->lock ? p->lock : p->manifest,
					p->from_version ? p->from_version : "(none)",
					p->to_version ? p->to_version : "(none)")) < 0)
			break;
	}
	for (i = 0; i < an->nclaims && !error; i++)
		if (!(error = buf_puts(out, "- ")) && !(error = put_text(out, an->claims[i], false)))
			error = buf_putc(out, '\n');
	return error;
}

static int put_confidence(struct buf *out, const struct deps_analysis *an)
{
	const char *name = deps_confidence_name(an->confidence);
	int error = buf_puts(out, "\nMerge confidence: ");

	for (; *name && !error; name++)
		error = buf_putc(out, (char)toupper((unsigned char)*name));
	if (!error && an->reason && *an->reason)
		error = buf_printf(out, " (%s)", an->reason);
	return error ? error : buf_putc(out, '\n');
}

static const char *bot_title(const char *bot)
{
	return !strcmp(bot, "dependabot") ? "Dependabot" : !strcmp(bot, "renovate") ? "Renovate" : bot;
}

int deps_prompt_section(struct buf *out, const struct deps_analysis *analysis)
{
	size_t i, shown = 0, hidden = 0;
	int error;

	buf_clear(out);
	if ((error = buf_put(out, "", 0)) < 0 || (!analysis->npackages && !analysis->nclaims))
		return error;
	if (!analysis->npackages) {
		if ((error = buf_puts(out, "## Dependencies\n\nNo manifest or lock file of this change moves a "
					   "package.\n")) < 0)
			return error;
		return put_claims(out, analysis);
	}
	if ((error = buf_puts(out, "## Dependencies\n\nThis change ")) < 0 ||
	    (error = put_counts(out, analysis)) < 0 || (error = put_ecosystems(out, analysis)) < 0)
		return error;
	if (analysis->bot && (error = buf_printf(out, ", made by %s", bot_title(analysis->bot))) < 0)
		return error;
	if ((error = buf_puts(out, ". Review it with a dependency-specific focus.\n\n"
				   "| name | relation | ecosystem | from | to | bump | advisories | breaking |\n"
				   "|---|---|---|---|---|---|---|---|\n")) < 0)
		return error;
	/* Every direct package and every one with an advisory; of the other transitive ones, the first few. */
	for (i = 0; i < analysis->npackages; i++) {
		const struct deps_package *p = &analysis->packages[i];

		if (p->relation == RELATION_TRANSITIVE && !p->nadvisories && !p->breaking && shown >= PROMPT_ROWS) {
			hidden++;
			continue;
		}
		shown++;
		if ((error = put_row(out, p)) < 0)
			return error;
	}
	if (hidden && (error = buf_printf(out, "\n%zu more transitive package%s moved, without advisories or major "
					  "bumps: not listed.\n", hidden, hidden == 1 ? "" : "s")) < 0)
		return error;
	if ((error = put_advisories(out, analysis)) < 0 || (error = put_claims(out, analysis)) < 0)
		return error;
	if ((error = buf_puts(out, "\nFocus on: breaking API changes in the code that uses them, deprecated usage, "
				   "security advisories, and lock file consistency.\n"
				   "Do not review lock files line by line.\n")) < 0)
		return error;
	return put_confidence(out, analysis);
}

