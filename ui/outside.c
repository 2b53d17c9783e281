/*
 * What leaves the UI for another program: e opens the file at the line in
 * the user's editor, y copies a finding as Markdown to the terminal's
 * clipboard (OSC 52).
 */
#include "outside.h"
#include "prompt.h"
#include "screen.h"
#include "status.h"
#include "tui.h"
#include "utf8.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The file and line of what the focused pane shows: a finding, a signal, the diff's cursor. */
static const char *place_of(struct tui *tui, int *line)
{
	struct view *focus = tui->focus;
	const struct finding *f;
	const struct signal *s;
	int row;

	*line = 1;
	if (focus == &tui->views[VIEW_FINDINGS] && (f = findings_current(tui, NULL))) {
		*line = f->line;
		return f->file;
	}
	if (focus == &tui->views[VIEW_SIGNALS] && (s = signals_current(tui, NULL))) {
		*line = s->line;
		return s->file;
	}
	if (tui->file >= tui->diff->nfiles)
		return NULL;
	if (focus == &tui->views[VIEW_DIFF])
		*line = diff_view_place(focus, &row);
	return tui->diff->files[tui->file].path;
}

/* The editor as git chooses it for a terminal: $VISUAL, then $EDITOR, then vi. */
static const char *editor(void)
{
	const char *e = getenv("VISUAL");

	if (!e || !*e)
		e = getenv("EDITOR");
	return e && *e ? e : "vi";
}

/*
 * Run "$EDITOR +LINE PATH" with the shell, as git runs its editor: the
 * editor's value is the user's own command line, the path and the line
 * are arguments, never part of the command text.
 */
static int editor_run(const char *path, int line, int *status)
{
	struct buf command = BUF_INIT;
	void (*old_int)(int), (*old_quit)(int);
	char plus[24];
	pid_t pid, got;
	int error;

	snprintf(plus, sizeof(plus), "+%d", line > 0 ? line : 1);
	if (buf_printf(&command, "%s \"$@\"", editor()) < 0)
		return error_nomem();
	/* A Ctrl-C in the editor is the editor's, as git has it. */
	old_int = signal(SIGINT, SIG_IGN);
	old_quit = signal(SIGQUIT, SIG_IGN);
	if ((pid = fork()) < 0) {
		error = errno;
		signal(SIGINT, old_int);
		signal(SIGQUIT, old_quit);
		buf_release(&command);
		return error_set(RL_ERROR, "cannot start the editor: %s", strerror(error));
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		execl("/bin/sh", "sh", "-c", command.ptr, editor(), plus, path, (char *)NULL);
		_exit(127);
	}
	buf_release(&command);
	while ((got = waitpid(pid, status, 0)) < 0 && errno == EINTR)
		;
	error = got < 0 ? errno : 0;
	signal(SIGINT, old_int);
	signal(SIGQUIT, old_quit);
	return error ? error_set(RL_ERROR, "the editor: %s", strerror(error)) : 0;
}

void outside_edit(struct tui *tui)
{
	struct buf path = BUF_INIT;
	const char *file;
	int line = 1, status = 0, rc;

	if (!(file = place_of(tui, &line)) || diff_find_file(tui->diff, file) < 0) {
		tui_message(tui, true, file ? "%s is not in the diff" : "No file here to edit", file);
		return;
	}
	if (!tui->repo->workdir || tui->target->side == SIDE_TREE) {
		tui_message(tui, true, "e edits the working tree: this diff is of commits");
		return;
	}
	/* Absolute: a path that starts with a dash is not taken for an option. */
	buf_printf(&path, "%s%s", tui->repo->workdir, file);
	/* The name is the diff's: the diff read again below releases it, so the message names it from the path. */
	file = path.ptr ? path.ptr + strlen(tui->repo->workdir) : "";
	def_prog_mode();
	tui_focus_events(false);
	endwin();
	rc = editor_run(path.ptr ? path.ptr : file, line, &status);
	reset_prog_mode();
	tui_focus_events(true);
	tui_redraw(tui);
	if (rc < 0)
		tui_message(tui, true, "%s", error_message());
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		tui_message(tui, true, "The editor (%s) exited with status %d", editor(),
			    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	/* Whatever the editor did is shown now, not at the next look at the tree. */
	if (tui_diff_refresh(tui, NULL) == 0 && rc == 0 && WIFEXITED(status) && !WEXITSTATUS(status))
		tui_message(tui, false, "Edited %s", file);
	buf_release(&path);
}

static void visible(struct buf *out, const char *s)
{
	if (s)
		utf8_visible(out, s, strlen(s));
}

/* A finding as Markdown, for a pull request comment. */
static void finding_markdown(struct buf *out, const struct finding *f)
{
	buf_puts(out, "**");
	visible(out, f->title);
	buf_printf(out, "** (%s) `", severity_name(f->severity));
	visible(out, f->file);
	buf_printf(out, ":%d`, rule `", f->line);
	visible(out, f->rule_id);
	buf_puts(out, "`\n\n");
	if (f->issue) {
		visible(out, f->issue);
		buf_puts(out, "\n\n");
	}
	if (f->suggestion) {
		buf_puts(out, "**Suggestion:** ");
		visible(out, f->suggestion);
		buf_puts(out, "\n\n");
	}
	if (f->evidence.code_examined && *f->evidence.code_examined) {
		struct buf code = BUF_INIT;

		visible(&code, f->evidence.code_examined);
		prompt_fence(out, NULL, code.ptr ? code.ptr : "", code.len);
		buf_release(&code);
	}
}

void outside_copy(struct tui *tui)
{
	const struct finding *f = tui_review_shown(tui) && !tui_signals_shown(tui) ?
		findings_current(tui, NULL) : NULL;
	struct buf md = BUF_INIT, seq = BUF_INIT;

	if (!f) {
		tui_message(tui, true, tui_review_shown(tui) ? "Move to a finding to copy it" :
			    "No findings yet: press c to check the diff");
		return;
	}
	if (!isatty(STDOUT_FILENO)) {
		tui_message(tui, true, "Not copied: the screen is not a terminal (y copies through it, OSC 52)");
		return;
	}
	finding_markdown(&md, f);
	/* OSC 52: the terminal (or tmux with set-clipboard) puts it on the clipboard. */
	buf_puts(&seq, "\033]52;c;");
	base64_encode(&seq, (const unsigned char *)(md.ptr ? md.ptr : ""), md.len);
	buf_puts(&seq, "\a");
	if (seq.ptr && write(STDOUT_FILENO, seq.ptr, seq.len) == (ssize_t)seq.len)
		tui_message(tui, false, "Copied finding %lld as Markdown (%zu bytes; the terminal must "
			    "allow OSC 52)", (long long)f->id, md.len);
	else
		tui_message(tui, true, "Not copied: %s", strerror(errno));
	buf_release(&md);
	buf_release(&seq);
}
