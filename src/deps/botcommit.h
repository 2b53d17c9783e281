#ifndef REVLINE_BOTCOMMIT_H
#define REVLINE_BOTCOMMIT_H

#include <stdbool.h>

/*
 * Dependency bots' commit lines, as their templates write them (read from
 * dependabot-core's PullRequestCreator::MessageBuilder and PrNamePrefixer,
 * and Renovate's commitMessage* options in lib/config/options and the
 * managers' and datasources' commitMessageTopic). Every line may carry a
 * prefix: a conventional type of any letters, digits and hyphens, with or
 * without a scope ("chore(deps): ", "build(deps-dev)!: ",
 * "docker-compose(deps): ", "fix: "), or a scope and no colon as
 * Renovate's commitMessagePrefix can give ("chore(deps) "); Dependabot's
 * "[Security] ", gitmoji "⬆️ " and "Upgrade: ". Case is ignored.
 */

struct botcommit_span {
	const char *p, *end;
};

struct botcommit_bump {
	struct botcommit_span name, from, to;
	struct botcommit_span dir;      /* after " in " ("/web"), or empty */
};

/*
 * Dependabot's line [line, end): "Bump X from A to B[ in /dir][ in the G
 * group]", "Update X requirement from ~> A to ~> B", and in bodies "Bumps
 * [X](url) from A to B." and "Updates `X` from A to B" (A and B may be
 * requirements with an operator, "~> 1.50"): 2 with the transition in out.
 * 1 for one of its lines without a transition: "Bump the G group[ across
 * N directories] with N updates", "Bump X and Y[ in /dir]", "Bump X, Y and
 * Z", "Bump X in /dir", "Bump X across N directories", "Bump X in the G
 * group[ across N directories]", "Update requirements for X", "Updates the
 * requirements on [X](url) ...", and the "updated-dependencies:" line of
 * the metadata at a message's end. Else 0. The line ends at its first CR
 * or LF: a message's CRLF (GitHub keeps a pull request body's in a squash
 * merge) or lone CR line ends read as LF's do. botcommit_renovate too.
 */
int botcommit_dependabot(struct botcommit_bump *out, const char *line, const char *end);

/*
 * Renovate's line: "<Action> <topic> to <version or digest>[ (<base
 * branch>)][ (#N)][ [SECURITY]]" for the actions Update, Pin and Roll back
 * and any topic ("dependency X", "module X", "Rust crate X", "X action",
 * "X docker tag", "X digest", a group's name, "X monorepo"); "Update all
 * ... dependencies", "Pin dependencies", "Lock file maintenance",
 * "Replace dependency X with Y ...".
 */
bool botcommit_renovate(const char *line, const char *end);

#endif
