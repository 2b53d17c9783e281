#ifndef REVLINE_LOCK_YAML_H
#define REVLINE_LOCK_YAML_H

/*
 * Inside the lock file readers: YAML (pnpm-lock.yaml, yarn.lock berry)
 * pulled event by event through libyaml, as lock_json.h pulls JSON: no
 * document is built, aliases are not expanded (a lock file has none to
 * follow), and nesting deeper than LOCK_JSON_DEPTH is an error.
 */
#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#include "buf.h"
#include "deps_text.h"

struct yaml_pull {
	yaml_parser_t parser;
	yaml_event_t event;
	bool have, failed, nomem;
	size_t depth;
	char why[200];
	struct buf key;
};

/* The text must outlive the reader; false (with why) when libyaml cannot start. */
bool yaml_pull_init(struct yaml_pull *y, const char *text, size_t len);
void yaml_pull_release(struct yaml_pull *y);
/* Enter the next document's top mapping (a stream may hold several): false at the stream's end, or (failed) when it is not one. */
bool yaml_pull_document(struct yaml_pull *y);
bool yaml_pull_mapping(struct yaml_pull *y);
/* The next key of the open mapping (a scalar, kept until the next key); false at its end (left) or on an error. */
bool yaml_pull_key(struct yaml_pull *y, struct span *key);
/* The scalar that comes next (valid until the next call); false when it is not one (the value is passed over). */
bool yaml_pull_scalar(struct yaml_pull *y, struct span *value);
/* Pass over the value that comes next. */
void yaml_pull_skip(struct yaml_pull *y);
void yaml_pull_fail(struct yaml_pull *y, const char *what);

#endif
