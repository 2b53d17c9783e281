#ifndef REVLINE_TAGS_H
#define REVLINE_TAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "poll_group.h"

/*
 * Definitions, from universal-ctags: the program (found on PATH, or the
 * trusted setting revline.ctags), checked to be Universal Ctags with JSON
 * output and its interactive mode; a session of it that tags many files
 * in one process, each file's content written to its standard input (so
 * the content may be any blob of any commit, and ctags opens no file of
 * the repository: in its sandbox, when it has one, it cannot); and the
 * reader of its JSON lines, which bounds everything ctags says, since a
 * hostile file can make it say anything.
 *
 * ctags runs as `ctags --options=NONE --_interactive[=sandbox]
 * --output-format=json ...` (TAGS_OPTIONS) in "/": no option file of the
 * repository or of the user is read, so that every store's tags of a blob
 * are made the same way. Prose and data (Markdown, JSON, YAML, ...) are not
 * tagged: their headings and keys are no definitions a change calls.
 */
#define TAGS_OPTIONS \
	"--output-format=json", "--fields=+neKSlZ-P", "-G", \
	"--languages=all,-Asciidoc,-BibTeX,-DBusIntrospect,-Diff,-DTD,-Glade,-Iniconf,-JavaProperties," \
	"-JSON,-Man,-Markdown,-Maven2,-Passwd,-PlistXML,-Pod,-PythonLoggingConfig,-RelaxNG,-ReStructuredText," \
	"-SVG,-SystemdUnit,-Tex,-TeXBeamer,-Txt2tags,-XML,-XSLT,-Yaml,-YumRepo"

/* Bounds on what ctags says: a longer line is dropped; more tags in a file are dropped. */
#define TAGS_LINE_MAX (64u << 10)
#define TAGS_PER_FILE_MAX 20000
#define TAGS_NAME_MAX 200       /* a longer name is dropped */
#define TAGS_WORD_MAX 40        /* kind, language: longer is dropped */
#define TAGS_TEXT_MAX 400       /* scope, signature: longer is cut */
#define TAGS_LINE_NO_MAX 50000000

enum tag_flags {
	TAG_FILE_SCOPE = 1,     /* visible in its file only (C's static) */
};

/* One definition. Its strings are one allocation, owned by the tag. */
struct tag {
	char *name;
	const char *kind, *scope, *signature, *language;    /* "" when ctags gave none */
	uint32_t line, end;     /* end 0: not known */
	unsigned flags;
};

struct tag_list {
	struct tag *items;
	size_t count, alloc;
	size_t dropped;         /* what the bounds left out */
};

/* A tag of these fields (NULL for ""), checked and cut as the reader does; RL_EPARSE when the name or kind is not one. */
int tag_list_add(struct tag_list *list, const char *name, const char *kind, const char *scope,
		 const char *signature, const char *language, uint32_t line, uint32_t end, unsigned flags);
void tag_list_release(struct tag_list *list);

/* --- the reader --------------------------------------------------------------- */

/*
 * ctags's JSON lines, fed as they come in pieces of any size. A line
 * longer than TAGS_LINE_MAX is skipped to its end, a line that is not
 * JSON, not a tag, or a tag without a name, kind or line within bounds is
 * dropped (counted in the file's list). At each "completed" the file's
 * tags go to done (which takes them: the list is emptied after), and an
 * "error" line of ctags goes there with its message.
 */
typedef int tags_done_fn(void *ctx, struct tag_list *tags, const char *error);

struct tags_reader {
	struct buf line;
	bool skipping;          /* inside a line over the bound */
	struct tag_list tags;   /* the current file's */
};

int tags_reader_feed(struct tags_reader *reader, const char *data, size_t len, tags_done_fn *done, void *ctx);
void tags_reader_release(struct tags_reader *reader);

/*
 * The end line of each definition ctags gave none for (JavaScript,
 * TypeScript, Rust: the closing brace of the block its line opens, found
 * by the brace scanner of edit windows, which knows their strings,
 * comments and regular expressions), from the file's content.
 */
int tags_fill_ends(struct tag_list *tags, const char *text, size_t len);

/* --- the program ------------------------------------------------------------------ */

#define TAGS_MISSING "universal-ctags is not installed: apt-get install universal-ctags"

struct tags_program {
	char *path;             /* where it is */
	char *version;          /* "Universal Ctags 5.9.0" */
	bool sandbox;           /* its interactive mode has a sandbox (seccomp) */
	/*
	 * What makes the tags: the version, the options and revline's own
	 * reading of them, so that another ctags (or another revline reading)
	 * tags every blob again.
	 */
	char *identity;
	int file_timeout_ms;    /* how long one file may take (0: TAGS_FILE_TIMEOUT_MS) */
};

/*
 * The program to run: setting (revline.ctags) when given, else "ctags" on
 * PATH. RL_ENOTFOUND with TAGS_MISSING (or naming the setting) when there
 * is none. Its version is not known until tags_program_check.
 */
int tags_program_find(struct tags_program *out, const char *setting);
/*
 * What `PATH --version` printed: Universal Ctags with +json and
 * +interactive, or RL_ECONFIG saying what it is and what to install. Sets
 * the version, sandbox and identity.
 */
int tags_program_check(struct tags_program *program, const char *text, size_t len);
/* The identity of a store's tags when there is no ctags: only the files' words are kept. */
int tags_program_none(struct tags_program *program);
void tags_program_release(struct tags_program *program);

/* --- a session ---------------------------------------------------------------------- */

/*
 * One ctags process tagging file after file: tags_session_send queues a
 * file's content (its path only tells ctags the language), and each
 * file's tags come back in the order sent (tags_session_next). A file
 * that makes ctags crash or take longer than TAGS_FILE_TIMEOUT_MS fails
 * alone: ctags is started again for the files after it, at most
 * TAGS_RESTARTS times. The session is stepped by its owner
 * (tags_session_fds, _timeout, _step from the owner's poll-group member).
 */
#define TAGS_FILE_TIMEOUT_MS 10000
#define TAGS_RESTARTS 16

struct tags_session;

struct tags_result {
	uint64_t id;            /* as sent */
	struct tag_list tags;   /* the caller's to release */
	char *error;            /* why it has no tags (ctags failed on it); NULL when tagged */
};

int tags_session_start(struct tags_session **out, const struct tags_program *program);
void tags_session_free(struct tags_session *session);
/* Queue a file (copied); path is only for the language. */
int tags_session_send(struct tags_session *session, uint64_t id, const char *path, const char *text, size_t len);
/* Bytes queued that ctags has not taken yet (the owner sends more below a bound of its own). */
size_t tags_session_queued(const struct tags_session *session);
/* Files sent whose tags did not come back yet. */
size_t tags_session_pending(const struct tags_session *session);
/* The next file's result, in the order sent: 1 with *out filled, 0 when none is ready. */
int tags_session_next(struct tags_session *session, struct tags_result *out);
void tags_result_release(struct tags_result *result);

int tags_session_fds(struct tags_session *session, struct pollfd *out, int max);
int tags_session_timeout(struct tags_session *session);
/*
 * Read what ctags said and watch it. When it cannot go on (it cannot
 * start again, or failed TAGS_RESTARTS times) every file waiting fails
 * with why, and so does every file sent after; < 0 only when memory ran
 * out.
 */
int tags_session_step(struct tags_session *session);

#endif
