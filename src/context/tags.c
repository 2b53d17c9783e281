/* universal-ctags: the program, checked, and a session that tags file after file in one process. */
#include "tags.h"
#include "array.h"
#include "child.h"
#include "clock.h"
#include "status.h"

#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUT_MAX (256u << 10)    /* ctags's output read in one step at most: more waits (a stream) */
#define NAME_MAX_BYTES 255      /* of the path given to ctags, for its language only */
#define VERSION_MAX 120

/* What revline's reading adds to the identity: a change here tags every blob again. */
#define READING "reader 2 (lines <= 64 KiB, <= 20000 tags a file); ends from braces 1"

/* --- the program ---------------------------------------------------------------------- */

int tags_program_find(struct tags_program *out, const char *setting)
{
	static const char *const names[] = { "ctags-universal", "universal-ctags", "ctags" };
	struct buf path = BUF_INIT;
	size_t i;
	int error = RL_ENOTFOUND;

	memset(out, 0, sizeof(*out));
	if (setting && *setting) {
		if ((error = child_which(&path, setting)) < 0)
			error = error_set(RL_ENOTFOUND, "revline.ctags names %s, which cannot be run (%s): set it "
					  "to universal-ctags's path, or unset it", setting, error_message());
	} else {
		for (i = 0; i < sizeof(names) / sizeof(*names) && error < 0; i++)
			error = child_which(&path, names[i]);
		if (error < 0)
			error = error_set(RL_ENOTFOUND, "%s", TAGS_MISSING);
	}
	if (error < 0) {
		buf_release(&path);
		return error;
	}
	out->path = buf_detach(&path);
	return 0;
}

static int identity_make(struct tags_program *p, const char *what)
{
	static const char *const options[] = { TAGS_OPTIONS };
	struct buf text = BUF_INIT;
	size_t i;

	buf_printf(&text, "%s; --options=NONE --_interactive%s", what, p->sandbox ? "=sandbox" : "");
	for (i = 0; i < sizeof(options) / sizeof(*options); i++)
		buf_printf(&text, " %s", options[i]);
	if (buf_printf(&text, "; %s", READING) < 0) {
		buf_release(&text);
		return -1;
	}
	free(p->identity);
	p->identity = buf_detach(&text);
	return 0;
}

/* The value of a line "NAME: ..." of the version text, bounded, or NULL. */
static bool feature_has(const char *text, size_t len, const char *feature)
{
	const char *line = memmem(text, len, "Optional compiled features:", 27), *end;
	size_t n = strlen(feature);

	if (!line)
		return false;
	end = memchr(line, '\n', len - (size_t)(line - text));
	if (!end)
		end = text + len;
	for (; line + n <= end; line++)
		if (!memcmp(line, feature, n) && (line + n == end || line[n] == ',' || line[n] == ' ' || line[n] == '\r'))
			return true;
	return false;
}

int tags_program_check(struct tags_program *p, const char *text, size_t len)
{
	size_t first = 0, n;

	while (first < len && text[first] != '\n' && first < VERSION_MAX)
		first++;
	for (n = 0; n < first && (unsigned char)text[n] >= 0x20 && text[n] != 0x7f; n++)
		if (n + 1 < first && text[n] == ',' && text[n + 1] == ' ')
			break;
	if (len < 15 || memcmp(text, "Universal Ctags", 15))
		return error_set(RL_ECONFIG, "%s is not Universal Ctags (it says \"%.*s\"): apt-get install "
				 "universal-ctags, or set revline.ctags to its path", p->path, (int)n, text);
	if (!feature_has(text, len, "+json") || !feature_has(text, len, "+interactive"))
		return error_set(RL_ECONFIG, "%s (%.*s) was built without JSON output or its interactive mode: "
				 "apt-get install universal-ctags", p->path, (int)n, text);
	free(p->version);
	if (!(p->version = strndup(text, n)))
		return error_nomem();
	p->sandbox = feature_has(text, len, "+sandbox");
	return identity_make(p, p->version);
}

int tags_program_none(struct tags_program *p)
{
	p->sandbox = false;
	return identity_make(p, "no ctags");
}

void tags_program_release(struct tags_program *p)
{
	free(p->path);
	free(p->version);
	free(p->identity);
	memset(p, 0, sizeof(*p));
}

/* --- a session ----------------------------------------------------------------------------- */

struct sent {
	uint64_t id;
	char *header;           /* the command line before the content */
	char *text;
	size_t len;
};

struct tags_session {
	const struct tags_program *program;
	struct child *child;
	struct tags_reader reader;
	struct sent *sent;              /* sent, waiting for their tags: from first to count */
	size_t first, count, alloc;
	struct tags_result *ready;      /* done, waiting for tags_session_next: from ready_first */
	size_t ready_first, nready, ready_alloc;
	int restarts;
	bool resync;                    /* ctags misread what it was sent: start it again for the files after */
	int64_t progress_ms;            /* when ctags last finished a file (or started) */
	bool dead;                      /* it cannot go on: every file fails */
	char *dead_message;
};

static void sent_release(struct sent *s)
{
	free(s->header);
	free(s->text);
}

void tags_result_release(struct tags_result *result)
{
	tag_list_release(&result->tags);
	free(result->error);
	memset(result, 0, sizeof(*result));
}

static int session_spawn(struct tags_session *s)
{
	const char *argv[] = { s->program->path, "--options=NONE",
			       s->program->sandbox ? "--_interactive=sandbox" : "--_interactive", TAGS_OPTIONS, NULL };
	struct child_options opts = { .argv = argv, .dir = "/", .input = true, .out_max = OUT_MAX,
				      .out_stream = true };
	size_t i;
	int error;

	child_free(s->child);
	s->child = NULL;
	tags_reader_release(&s->reader);
	if ((error = child_start(&s->child, &opts, NULL)) < 0)
		return error_set(error, "cannot run %s: %s", s->program->path, error_message());
	for (i = s->first; i < s->count && !error; i++)
		if ((error = child_write(s->child, s->sent[i].header, strlen(s->sent[i].header))) == 0)
			error = child_write(s->child, s->sent[i].text, s->sent[i].len);
	s->progress_ms = clock_ms();
	return error;
}

static int session_respawn(struct tags_session *s);

static int file_timeout(const struct tags_session *s)
{
	return s->program->file_timeout_ms > 0 ? s->program->file_timeout_ms : TAGS_FILE_TIMEOUT_MS;
}

int tags_session_start(struct tags_session **out, const struct tags_program *program)
{
	struct tags_session *s = calloc(1, sizeof(*s));
	int error;

	*out = NULL;
	if (!s)
		return error_nomem();
	s->program = program;
	if ((error = session_spawn(s)) < 0) {
		tags_session_free(s);
		return error;
	}
	*out = s;
	return 0;
}

void tags_session_free(struct tags_session *s)
{
	size_t i;

	if (!s)
		return;
	child_free(s->child);
	tags_reader_release(&s->reader);
	for (i = s->first; i < s->count; i++)
		sent_release(&s->sent[i]);
	free(s->sent);
	for (i = s->ready_first; i < s->nready; i++)
		tags_result_release(&s->ready[i]);
	free(s->ready);
	free(s->dead_message);
	free(s);
}

/* The path ctags is told: printable ASCII only (it only picks the language), at most its last 255 bytes. */
static char *name_for_ctags(const char *path)
{
	size_t n = strlen(path), i;
	const char *p = n > NAME_MAX_BYTES ? path + n - NAME_MAX_BYTES : path;
	char *name = strdup(p);

	for (i = 0; name && name[i]; i++)
		if ((unsigned char)name[i] < 0x20 || (unsigned char)name[i] >= 0x7f)
			name[i] = '_';
	return name;
}

static char *header_of(const char *path, size_t len)
{
	char *name = name_for_ctags(path), *text = NULL, *line = NULL;
	json_t *cmd = name ? json_pack("{s:s, s:s, s:I}", "command", "generate-tags", "filename", name, "size",
				       (json_int_t)len) : NULL;

	if (cmd && (text = json_dumps(cmd, JSON_COMPACT)) && asprintf(&line, "%s\n", text) < 0)
		line = NULL;
	free(text);
	json_decref(cmd);
	free(name);
	return line;
}

int tags_session_send(struct tags_session *s, uint64_t id, const char *path, const char *text, size_t len)
{
	struct sent *sent;

	if (s->first == s->count) {
		s->first = s->count = 0;
	} else if (s->first > 64 && s->first * 2 > s->count) {
		memmove(s->sent, s->sent + s->first, (s->count - s->first) * sizeof(*s->sent));
		s->count -= s->first;
		s->first = 0;
	}
	if (ARRAY_GROW(s->sent, s->alloc, s->count + 1) < 0)
		return -1;
	sent = &s->sent[s->count];
	memset(sent, 0, sizeof(*sent));
	sent->id = id;
	sent->len = len;
	if (!(sent->header = header_of(path, len)) || !(sent->text = malloc(len ? len : 1))) {
		sent_release(sent);
		return error_nomem();
	}
	memcpy(sent->text, text, len);
	if (s->first == s->count)
		s->progress_ms = clock_ms();    /* the clock of a file starts when it is the first waiting */
	s->count++;
	if (s->dead)
		return 0;       /* it fails at the next step */
	if (!s->child)
		return session_respawn(s);      /* which sends every file waiting */
	if (child_write(s->child, sent->header, strlen(sent->header)) < 0 || child_write(s->child, text, len) < 0)
		return -1;
	return 0;
}

size_t tags_session_queued(const struct tags_session *s)
{
	return s->child ? child_input_pending(s->child) : 0;
}

size_t tags_session_pending(const struct tags_session *s)
{
	return s->count - s->first;
}

static int ready_add(struct tags_session *s, uint64_t id, struct tag_list *tags, const char *error)
{
	struct tags_result *r;

	if (s->ready_first == s->nready)
		s->ready_first = s->nready = 0;
	if (ARRAY_GROW(s->ready, s->ready_alloc, s->nready + 1) < 0)
		return -1;
	r = &s->ready[s->nready];
	memset(r, 0, sizeof(*r));
	r->id = id;
	if (tags) {
		r->tags = *tags;
		memset(tags, 0, sizeof(*tags));
	}
	if (error && !(r->error = strdup(error)))
		return error_nomem();
	s->nready++;
	return 0;
}

/* The first file waiting is done: tagged, or failed with why. */
static int first_done(struct tags_session *s, struct tag_list *tags, const char *why)
{
	struct sent *sent;
	int error;

	if (s->first == s->count)
		return 0;       /* ctags said it finished a file it was not given */
	sent = &s->sent[s->first++];
	error = ready_add(s, sent->id, tags, why);
	sent_release(sent);
	s->progress_ms = clock_ms();
	return error;
}

static int reader_done(void *ctx, struct tag_list *tags, const char *error)
{
	struct tags_session *s = ctx;

	if (error) {
		/* It did not understand what it was sent: what follows is read wrong; start again after this file. */
		s->resync = true;
		return first_done(s, NULL, error);
	}
	return first_done(s, tags, NULL);
}

int tags_session_next(struct tags_session *s, struct tags_result *out)
{
	if (s->ready_first == s->nready)
		return 0;
	*out = s->ready[s->ready_first++];
	return 1;
}

/* Every file waiting fails with the message: ctags cannot go on. */
static int session_die(struct tags_session *s, const char *why)
{
	int error = 0;

	s->dead = true;
	if (!s->dead_message && !(s->dead_message = strdup(why)))
		error = error_nomem();
	while (s->first < s->count && !error)
		error = first_done(s, NULL, s->dead_message ? s->dead_message : why);
	child_free(s->child);
	s->child = NULL;
	return error;
}

/* A new ctags for the files waiting; when none starts, they fail with why. */
static int session_respawn(struct tags_session *s)
{
	char message[256];

	if (session_spawn(s) == 0)
		return 0;
	snprintf(message, sizeof(message), "%s", error_message());
	error_clear();
	return session_die(s, message);
}

/* ctags stopped or hung on the first file waiting: that file fails, the others go to a new ctags. */
static int session_restart(struct tags_session *s, const char *why)
{
	char message[256];
	int error;

	if ((error = first_done(s, NULL, why)) < 0)
		return error;
	if (++s->restarts > TAGS_RESTARTS) {
		snprintf(message, sizeof(message), "ctags failed on %d files; the others were not tagged",
			 TAGS_RESTARTS + 1);
		return session_die(s, message);
	}
	return session_respawn(s);
}

static void ended_why(char *out, size_t size, const struct child *child)
{
	if (child_signal(child))
		snprintf(out, size, "ctags crashed on this file (%s)", strsignal(child_signal(child)));
	else
		snprintf(out, size, "ctags stopped on this file (exit status %d)", child_exit_code(child));
}

int tags_session_step(struct tags_session *s)
{
	const struct buf *out;
	char why[128];
	int error = 0;

	if (s->dead)
		return session_die(s, s->dead_message ? s->dead_message : "ctags cannot run");
	if (!s->child)
		return 0;
	child_step(s->child, NULL, 0);
	out = child_out(s->child);
	if (out->len) {
		error = tags_reader_feed(&s->reader, out->ptr, out->len, reader_done, s);
		child_out_drop(s->child, out->len);
		if (error < 0)
			return error;
	}
	if (s->resync) {
		s->resync = false;
		if (++s->restarts > TAGS_RESTARTS)
			return session_die(s, "ctags misread what it was sent too often; the other files were not tagged");
		return session_respawn(s);
	}
	if (child_done(s->child) && !child_out(s->child)->len) {
		if (s->first == s->count) {
			child_free(s->child);   /* the next file starts another */
			s->child = NULL;
			return 0;
		}
		ended_why(why, sizeof(why), s->child);
		return session_restart(s, why);
	}
	if (s->first < s->count && clock_ms() - s->progress_ms > file_timeout(s)) {
		snprintf(why, sizeof(why), "ctags took more than %.1f s on this file and was stopped",
			 file_timeout(s) / 1000.0);
		child_cancel(s->child);
		return session_restart(s, why);
	}
	return 0;
}

int tags_session_fds(struct tags_session *s, struct pollfd *out, int max)
{
	return s->child ? child_fds(s->child, out, max) : 0;
}

int tags_session_timeout(struct tags_session *s)
{
	int64_t left;
	int t;

	if (s->dead || s->ready_first < s->nready)
		return 0;
	if (!s->child)
		return -1;
	t = child_timeout(s->child);
	if (child_done(s->child))
		return 0;
	if (s->first < s->count) {
		left = s->progress_ms + file_timeout(s) + 1 - clock_ms();
		t = poll_sooner(t, left < 0 ? 0 : (int)left);
	}
	return t;
}
