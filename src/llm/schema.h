#ifndef REVLINE_SCHEMA_H
#define REVLINE_SCHEMA_H

#include <jansson.h>

/*
 * The JSON schemas of the answers revline asks for, sent as the structured
 * output's schema (OpenAI's json_schema, strict: every property required,
 * no others; Anthropic's forced tool's input_schema). They name the fields
 * and values the answer parsers read (answer.c, reduce.c, fix.c,
 * fixdetect.c) under their canonical names; the parsers stay lenient for
 * servers that answer from the prompt alone.
 */
#define SCHEMA_LIST(X) \
	X(SCHEMA_MAP,       "map",       "review_answer") \
	X(SCHEMA_REDUCE,    "reduce",    "merged_review") \
	X(SCHEMA_FIX,       "fix",       "fixed_snippet") \
	X(SCHEMA_FIXDETECT, "fixdetect", "fix_analysis")

enum schema_kind {
#define SCHEMA_ENUM(id, kind, name) id,
	SCHEMA_LIST(SCHEMA_ENUM)
#undef SCHEMA_ENUM
	SCHEMA_COUNT
};

/* The schema (parsed once, never to be released), or NULL when memory ran out. */
const json_t *schema_get(enum schema_kind kind);
/* Its name for the API ("review_answer") and revline's ("map"). */
const char *schema_name(enum schema_kind kind);
const char *schema_kind_name(enum schema_kind kind);

#endif
