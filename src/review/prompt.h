#ifndef REVLINE_PROMPT_H
#define REVLINE_PROMPT_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/*
 * Prompts are built from templates in share/prompts/ (map.md, reduce.md,
 * ...), which a user can override with a file of the same name in
 * $XDG_CONFIG_HOME/revline/prompts/. A template is text with two parts:
 *
 *   <<<system>>>
 *   ... the system message ...
 *   <<<user>>>
 *   ... the user message ...
 *
 * A template may end with a third part, after a line <<<rule>>>: what is a
 * request's own when several share the <<<user>>> part (the map step's
 * rule, after the change every rule of a check is asked about), so that
 * prompt caches can reuse the shared part. prompt_render appends it to
 * the user message; prompt_render_parts keeps it apart.
 *
 * {{name}} is replaced by a variable's value; {{#name}} ... {{/name}} is
 * kept only when the variable is set and not empty. Code (diffs, snippets,
 * context files) is passed already fenced, see prompt_fence.
 *
 * Text that comes from the repository under review or another outside
 * source (the change, commit messages, standards files, context, tool
 * results, answers) is data, never instructions: a variable holding it
 * names what it is (data), and the renderer never writes it as it is. A
 * placeholder on a line of its own becomes a block the text cannot close
 * (prompt_data); one in running text (a path in a heading) is written on
 * one line, its line breaks and hidden characters made visible (<U+000A>,
 * <U+202E>), so that it cannot start a line of the prompt's own. Every
 * template says in its system part which blocks it holds and that they are
 * data; a template of the user's gets the same blocks.
 */

struct prompt_var {
	const char *name;
	const char *value;      /* NULL or "" counts as empty */
	const char *data;       /* NULL: revline's own text; else what the outside text is ("the change") */
};

/* Render the named template. Errors name the template file and line. */
int prompt_render(struct buf *system, struct buf *user, const char *name,
		  const struct prompt_var *vars, size_t count);
/* The system message, the shared part of the user message, and the part after <<<rule>>> ("" without one). */
int prompt_render_parts(struct buf *system, struct buf *shared, struct buf *tail, const char *name,
			const struct prompt_var *vars, size_t count);
/* The same for template text (path is only for messages). */
int prompt_render_text(struct buf *system, struct buf *user, const char *text, size_t len,
		       const char *path, const struct prompt_var *vars, size_t count);

/*
 * Append text as a fenced code block whose fence is longer than any run of
 * backticks in the text, so the text cannot close it.
 */
int prompt_fence(struct buf *out, const char *lang, const char *text, size_t len);

/* A fence's language for a path, by its extension ("python", "c", ...; "text" when not known). */
const char *prompt_language(const char *path);

/*
 * Append text as a block of outside data:
 *
 *   <untrusted-1a2b3c4d5e6f source="the change">
 *   ...the text...
 *   </untrusted-1a2b3c4d5e6f>
 *
 * The tag's twelve hex digits are derived from the text (a SHA-1), and
 * chosen again while the text holds them in any case, so the text can
 * neither close its block nor guess the tag before it is written; the
 * same text always gets the same tag, so a block in the shared part of a
 * prompt is the same bytes for every rule (the providers' caches). The
 * templates' system parts name this form.
 */
#define PROMPT_DATA_TAG "untrusted-"
int prompt_data(struct buf *out, const char *source, const char *text, size_t len);

#endif
