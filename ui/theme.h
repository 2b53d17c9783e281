#ifndef REVLINE_THEME_H
#define REVLINE_THEME_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/*
 * Styles: X(ID, name in theme files, letter in screen-attribute dumps).
 * Every colour the UI draws with is one of these.
 */
#define STYLE_LIST(X) \
	X(STYLE_DEFAULT,       "default",        '.') \
	X(STYLE_CURSOR,        "cursor",         'C') \
	X(STYLE_CURSOR_BLUR,   "cursor-blur",    'c') \
	X(STYLE_TITLE_FOCUS,   "title-focus",    'T') \
	X(STYLE_TITLE_BLUR,    "title-blur",     't') \
	X(STYLE_STATUS,        "status",         'S') \
	X(STYLE_STATUS_ERROR,  "status-error",   'E') \
	X(STYLE_FILE_ADDED,    "file-added",     'A') \
	X(STYLE_FILE_MODIFIED, "file-modified",  'M') \
	X(STYLE_FILE_DELETED,  "file-deleted",   'D') \
	X(STYLE_FILE_RENAMED,  "file-renamed",   'R') \
	X(STYLE_COUNT_ADD,     "count-add",      'p') \
	X(STYLE_COUNT_DEL,     "count-del",      'm') \
	X(STYLE_FILE_HEADER,   "file-header",    'F') \
	X(STYLE_HUNK_HEADER,   "hunk-header",    'H') \
	X(STYLE_DIFF_ADD,      "diff-add",       '+') \
	X(STYLE_DIFF_DEL,      "diff-del",       '-') \
	X(STYLE_DIFF_CONTEXT,  "diff-context",   ' ') \
	X(STYLE_LINE_NUMBER,   "line-number",    'n') \
	X(STYLE_DELIMITER,     "delimiter",      '|') \
	X(STYLE_SEARCH_MATCH,  "search-match",   '/') \
	X(STYLE_SPECIAL,       "special",        '~') \
	X(STYLE_HELP_GROUP,    "help-group",     'g') \
	X(STYLE_HELP_KEY,      "help-key",       'k') \
	X(STYLE_EMPTY_TITLE,   "empty-title",    'e') \
	X(STYLE_SEV_CRITICAL,   "severity-critical",'!') \
	X(STYLE_SEV_MAJOR,      "severity-major",  'J') \
	X(STYLE_SEV_MINOR,      "severity-minor",  'i') \
	X(STYLE_SEV_NITPICK,    "severity-nitpick",'q') \
	X(STYLE_RULE_RUNNING,   "rule-running",    'w') \
	X(STYLE_RULE_OK,        "rule-ok",         'o') \
	X(STYLE_RULE_ATTENTION, "rule-attention",  'a') \
	X(STYLE_RULE_FAILED,    "rule-failed",     'f') \
	X(STYLE_RULE_MUTED,     "rule-muted",      'z') \
	X(STYLE_MARK,           "mark",            '*') \
	X(STYLE_LABEL,          "label",           'L')

enum style {
#define STYLE_ENUM(id, name, letter) id,
	STYLE_LIST(STYLE_ENUM)
#undef STYLE_ENUM
	STYLE_COUNT
};

/* Colour numbers: -1 is the terminal's default colour. */
struct style_def {
	short fg, bg;           /* for terminals with 256 colours */
	short fg8, bg8;         /* the fallback for 8 (or 16) colours */
	unsigned attrs;         /* THEME_BOLD | ... */
	bool set;               /* given by the theme file */
};

enum theme_attr {
	THEME_BOLD = 1 << 0,
	THEME_DIM = 1 << 1,
	THEME_REVERSE = 1 << 2,
	THEME_UNDERLINE = 1 << 3,
	THEME_ITALIC = 1 << 4,
	THEME_STANDOUT = 1 << 5,
	THEME_BLINK = 1 << 6,
};

struct theme {
	char name[64];
	struct style_def styles[STYLE_COUNT];
	bool mono;              /* attributes only, no colour */
};

const char *style_name(enum style style);
char style_letter(enum style style);

/* The built-in default (the same as themes/default-dark). */
void theme_default(struct theme *out);
/* The built-in mono theme, used for NO_COLOR and terminals without colour. */
void theme_mono(struct theme *out);

/*
 * Parse theme text over what *theme holds. Each bad line is skipped and
 * reported in errors as "FILE:LINE: message\n"; returns the number of bad
 * lines.
 */
int theme_parse(struct theme *theme, const char *text, size_t len, const char *filename,
		struct buf *errors);

/*
 * Load a theme by name (looked up in $XDG_CONFIG_HOME/revline/themes, then
 * revline's themes directory) or by path (anything with a '/'). Starts from
 * the default theme, so what is missing or bad keeps the default. A theme
 * that cannot be found leaves the default and reports it in errors.
 */
int theme_load(struct theme *out, const char *name, struct buf *errors);

/*
 * Curses side. theme_apply sets up colour pairs (when the terminal has
 * colours and the theme is not mono) and the attributes of each style.
 */
void theme_apply(const struct theme *theme);
/* The curses attributes (colour pair included) to draw a style with. */
unsigned long theme_attr(enum style style);
/* For screen dumps: the style drawn with these attributes and pair, or -1. */
int theme_style_of(unsigned long attrs, short pair);

#endif
