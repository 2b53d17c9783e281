#include "script.h"
#include "app.h"
#include "clock.h"
#include "proc_sample.h"
#include "request.h"
#include "status.h"
#include "store.h"
#include "theme.h"
#include "tui.h"
#include "watch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

struct script {
	char *path;
	struct buf text;
	size_t pos;
	size_t lineno;
	unsigned serial;        /* the diff's when a file was last written (wait-reload) */
};

int script_load(struct script **out, const char *path)
{
	struct script *script = calloc(1, sizeof(*script));
	int error;

	*out = NULL;
	if (!script)
		return error_nomem();
	if ((error = buf_read_file(&script->text, path)) < 0) {
		free(script);
		return error;
	}
	script->path = strdup(path);
	*out = script;
	return 0;
}

void script_free(struct script *script)
{
	if (!script)
		return;
	buf_release(&script->text);
	free(script->path);
	free(script);
}

static void script_fail(struct script *script, struct tui *tui, const char *what)
{
	tui_message(tui, true, "%s:%zu: %s", script->path, script->lineno, what);
	fprintf(stderr, "%s:%zu: %s\n", script->path, script->lineno, what);
	tui->quit = true;
	tui->exit_status = 2;
}

/* Keys of a line: characters (UTF-8 decoded) and <Name> for special keys. */
static void run_keys(struct script *script, struct tui *tui, const char *s, size_t len)
{
	mbstate_t state;
	size_t i = 0;

	memset(&state, 0, sizeof(state));
	while (i < len && !tui->quit) {
		const char *close;
		wchar_t wc;
		size_t n;
		int key;

		if (s[i] == '<' && (close = memchr(s + i, '>', len - i)) && close > s + i + 1) {
			key = key_from_name(s + i + 1, (size_t)(close - s - i - 1));
			if (key < 0) {
				script_fail(script, tui, "unknown key name");
				return;
			}
			i = (size_t)(close - s) + 1;
		} else {
			n = mbrtowc(&wc, s + i, len - i, &state);
			if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
				key = (unsigned char)s[i];
				n = 1;
				memset(&state, 0, sizeof(state));
			} else {
				key = (int)wc;
			}
			i += n;
		}
		tui_key(tui, key);
		tui_draw(tui);
	}
}

/* What a :wait command waits for. */
static bool rule_settled(struct tui *tui, const char *id)
{
	const struct check *c = tui->review.check;
	size_t i;

	for (i = 0; c && i < check_nresults(c); i++)
		if (!strcmp(check_result(c, i)->rule->id, id))
			return rule_status_settled(check_result(c, i)->status);
	return false;
}

static bool condition(struct tui *tui, const char *what, const char *arg)
{
	if (!strcmp(what, "wait-reload"))
		return tui->diff_serial != tui->script->serial;
	if (!strcmp(what, "wait-rule"))
		return rule_settled(tui, arg);
	if (!strcmp(what, "wait-check"))
		return tui->review.check && check_done(tui->review.check);
	if (!strcmp(what, "wait-fixes"))
		return tui->review.fixes && fixdetect_done(tui->review.fixes);
	/* A fix asked for or rechecked after an apply; the linters (L). */
	if (!strcmp(what, "wait-fix"))
		return !fixes_busy(&tui->fixes);
	if (!strcmp(what, "wait-lint"))
		return !fixes_linting(&tui->fixes);
	return false;
}

/*
 * Run the UI's loop (keys from the script only) until the condition holds,
 * or for ms when there is none; a condition that never comes fails the
 * script after 30 s.
 */
static void run_until(struct script *script, struct tui *tui, const char *what, const char *arg, int ms)
{
	int64_t end = clock_ms() + (what ? 30000 : ms);

	while (!tui->quit && clock_ms() < end && !(what && condition(tui, what, arg))) {
		loop_step(&tui->loop, 20);
		tui_draw(tui);
	}
	if (what && !condition(tui, what, arg))
		script_fail(script, tui, "timed out waiting");
}

/*
 * append PATH TEXT: a line added to a file of the working tree, as an
 * editor in another terminal would; wait-reload then waits for the UI to
 * read the diff again.
 */
static void append_line(struct script *script, struct tui *tui, const char *arg)
{
	const char *text = strchr(arg, ' ');
	char path[1024];
	FILE *fp;

	snprintf(path, sizeof(path), "%.*s", text ? (int)(text - arg) : (int)strlen(arg), arg);
	script->serial = tui->diff_serial;
	if (!(fp = fopen(path, "a")) || fprintf(fp, "%s\n", text ? text + 1 : "") < 0) {
		if (fp)
			fclose(fp);
		script_fail(script, tui, "cannot append to the file");
		return;
	}
	if (fclose(fp) != 0)
		script_fail(script, tui, "cannot append to the file");
}

/*
 * rewrite PATH N TEXT: line N of a file of the working tree becomes TEXT,
 * the file written whole as an editor saves it; the diff stays the same
 * size while its content changes (the soak test's edit).
 */
static void rewrite_line(struct script *script, struct tui *tui, const char *arg)
{
	struct buf in = BUF_INIT, out = BUF_INIT;
	char path[1024];
	const char *p, *end, *text;
	unsigned long want, n = 1;
	int used = 0;

	if (sscanf(arg, "%1023s %lu %n", path, &want, &used) < 2 || !used || want == 0) {
		script_fail(script, tui, "rewrite PATH LINE TEXT");
		return;
	}
	text = arg + used;
	script->serial = tui->diff_serial;
	if (buf_read_file(&in, path) < 0) {
		error_clear();
		script_fail(script, tui, "cannot read the file to rewrite");
		goto done;
	}
	for (p = in.ptr ? in.ptr : ""; p < in.ptr + in.len; p = end, n++) {
		const char *nl = memchr(p, '\n', (size_t)(in.ptr + in.len - p));

		end = nl ? nl + 1 : in.ptr + in.len;
		if (n == want)
			buf_printf(&out, "%s\n", text);
		else
			buf_put(&out, p, (size_t)(end - p));
	}
	if (n <= want || buf_write_file(path, out.ptr ? out.ptr : "", out.len, 0644) < 0) {
		error_clear();
		script_fail(script, tui, "cannot rewrite the line");
	}
done:
	buf_release(&in);
	buf_release(&out);
}

static void run_command(struct script *script, struct tui *tui, const char *s, size_t len)
{
	char cmd[64] = "", arg[1024] = "";
	char line[1100];
	int cols, rows;

	snprintf(line, sizeof(line), "%.*s", (int)len, s);
	sscanf(line, "%63s %1023[^\n]", cmd, arg);
	if (!strcmp(cmd, "save-display") || !strcmp(cmd, "save-attrs")) {
		tui_draw(tui);
		if (!*arg || screen_dump(arg, !strcmp(cmd, "save-attrs")) < 0)
			script_fail(script, tui, "cannot write the screen dump");
	} else if (!strcmp(cmd, "resize") && sscanf(arg, "%d %d", &cols, &rows) == 2 &&
		   cols > 0 && rows > 0) {
		resizeterm(rows, cols);
		tui_key(tui, KEY_RESIZE);
		tui_draw(tui);
	} else if (!strcmp(cmd, "wait-rule") && *arg) {
		run_until(script, tui, cmd, arg, 0);
	} else if (!strcmp(cmd, "wait-check") || !strcmp(cmd, "wait-fixes") || !strcmp(cmd, "wait-fix") ||
		   !strcmp(cmd, "wait-lint")) {
		run_until(script, tui, cmd, arg, 0);
	} else if (!strcmp(cmd, "append") && *arg) {
		append_line(script, tui, arg);
	} else if (!strcmp(cmd, "rewrite") && *arg) {
		rewrite_line(script, tui, arg);
	} else if (!strcmp(cmd, "wait-reload")) {
		run_until(script, tui, cmd, arg, 0);
	} else if (!strcmp(cmd, "settle") && atoi(arg) >= 0 && *arg) {
		watch_settle(tui->watch, atoi(arg));
	} else if (!strcmp(cmd, "sample") && *arg) {
		/* What the process holds now (proc_sample.h), SQLite's share said apart. */
		if (proc_sample_write(arg, store_memory()) < 0) {
			error_clear();
			script_fail(script, tui, "cannot write the sample");
		}
	} else if (!strcmp(cmd, "sleep") && atoi(arg) > 0) {
		run_until(script, tui, NULL, NULL, atoi(arg));
	} else {
		script_fail(script, tui, "unknown script command (save-display, save-attrs, resize, "
			    "wait-rule ID, wait-check, wait-fixes, wait-fix, wait-lint, sleep MS, "
			    "append PATH TEXT, rewrite PATH LINE TEXT, wait-reload, settle MS, sample FILE)");
	}
}

bool script_step(struct script *script, struct tui *tui)
{
	const char *s, *nl;
	size_t len;

	while (script->pos < script->text.len && !tui->quit) {
		s = script->text.ptr + script->pos;
		nl = memchr(s, '\n', script->text.len - script->pos);
		len = nl ? (size_t)(nl - s) : script->text.len - script->pos;
		script->pos += len + (nl ? 1 : 0);
		script->lineno++;
		if (len && s[len - 1] == '\r')
			len--;
		if (!len || s[0] == '#')
			continue;
		if (s[0] == ':')
			run_command(script, tui, s + 1, len - 1);
		else
			run_keys(script, tui, s, len);
		return !tui->quit;
	}
	return false;
}

/*
 * A cell drawn without a colour pair (the mono theme, NO_COLOR) shows its
 * attributes: R reverse and bold, r reverse, b bold, u underline, d dim,
 * i italic, . none (the first that applies).
 */
static char attr_letter(attr_t a)
{
	if (a & A_REVERSE)
		return a & A_BOLD ? 'R' : 'r';
	if (a & A_BOLD)
		return 'b';
	if (a & A_UNDERLINE)
		return 'u';
	if (a & A_DIM)
		return 'd';
#ifdef A_ITALIC
	if (a & A_ITALIC)
		return 'i';
#endif
	return '.';
}

static void dump_row(FILE *fp, int y, bool attrs)
{
	wchar_t text[4096];
	int x, end;

	if (!attrs) {
		int n = mvwinnwstr(curscr, y, 0, text, (int)(sizeof(text) / sizeof(text[0])) - 1);

		if (n < 0)
			n = 0;
		text[n] = L'\0';
		for (end = n; end > 0 && text[end - 1] == L' '; end--)
			;
		text[end] = L'\0';
		fprintf(fp, "%ls\n", text);
		return;
	}
	/* Cell by cell: win_wchnstr would give a wide character once, not
	 * once per column it covers. */
	for (x = 0; x < COLS; x++) {
		wchar_t wch[CCHARW_MAX + 1];
		cchar_t cell;
		attr_t a = A_NORMAL;
		short pair = 0;
		int style;

		if (mvwin_wch(curscr, y, x, &cell) == OK)
			getcchar(&cell, wch, &a, &pair, NULL);
		style = pair > 0 ? theme_style_of(a, pair) : -1;
		fputc(style >= 0 ? style_letter((enum style)style) : attr_letter(a), fp);
	}
	fputc('\n', fp);
}

int screen_dump(const char *path, bool attrs)
{
	FILE *fp = fopen(path, "w");
	int y;

	if (!fp)
		return error_set(RL_EIO, "%s: %s", path, strerror(errno));
	for (y = 0; y < LINES; y++)
		dump_row(fp, y, attrs);
	return fclose(fp) == 0 ? 0 : error_set(RL_EIO, "%s: write failed", path);
}
