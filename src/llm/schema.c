/* The answers' JSON schemas (schema.h). */
#include "schema.h"

#include <stddef.h>

#define STR "{\"type\": \"string\"}"
#define STRINGS "{\"type\": \"array\", \"items\": " STR "}"
#define SEVERITY "{\"type\": \"string\", \"enum\": [\"critical\", \"major\", \"minor\", \"nitpick\"]}"

static const char map_schema[] =
	"{\"type\": \"object\", \"additionalProperties\": false,"
	" \"required\": [\"status\", \"reasoning\", \"file_references\", \"findings\"],"
	" \"properties\": {"
	"  \"status\": {\"type\": \"string\", \"enum\": [\"compliant\", \"attention\", \"not_relevant\"]},"
	"  \"reasoning\": " STR ","
	"  \"file_references\": " STRINGS ","
	"  \"findings\": {\"type\": \"array\", \"items\": {\"type\": \"object\","
	"   \"additionalProperties\": false,"
	"   \"required\": [\"file\", \"line\", \"end_line\", \"severity\", \"title\", \"issue\","
	"                \"suggestion\", \"verification\"],"
	"   \"properties\": {"
	"    \"file\": " STR ", \"line\": {\"type\": \"integer\"},"
	"    \"end_line\": {\"type\": [\"integer\", \"null\"]},"
	"    \"severity\": " SEVERITY ", \"title\": " STR ", \"issue\": " STR ", \"suggestion\": " STR ","
	"    \"verification\": {\"type\": \"object\", \"additionalProperties\": false,"
	"     \"required\": [\"code_examined\", \"line_range_examined\", \"verification_method\","
	"                  \"checked_for_handling_elsewhere\", \"where_checked\", \"is_impact_finding\"],"
	"     \"properties\": {"
	"      \"code_examined\": " STR ","
	"      \"line_range_examined\": {\"type\": \"array\", \"items\": {\"type\": \"integer\"},"
	"       \"description\": \"[first line, last line]\"},"
	"      \"verification_method\": " STR ","
	"      \"checked_for_handling_elsewhere\": {\"type\": \"boolean\"},"
	"      \"where_checked\": " STR ","
	"      \"is_impact_finding\": {\"type\": \"boolean\"}}}}}}}}";

static const char reduce_schema[] =
	"{\"type\": \"object\", \"additionalProperties\": false,"
	" \"required\": [\"summary\", \"overallSeverity\", \"mustFix\", \"findings\"],"
	" \"properties\": {"
	"  \"summary\": " STR ","
	"  \"overallSeverity\": {\"type\": \"string\","
	"   \"enum\": [\"clean\", \"minor-issues\", \"needs-work\", \"critical\"]},"
	"  \"mustFix\": " STRINGS ","
	"  \"findings\": {\"type\": \"array\", \"items\": {\"type\": \"object\","
	"   \"additionalProperties\": false,"
	"   \"required\": [\"id\", \"severity\", \"category\", \"file\", \"line\", \"title\", \"issue\","
	"                \"suggestion\", \"fromRules\", \"sources\"],"
	"   \"properties\": {"
	"    \"id\": " STR ", \"severity\": " SEVERITY ","
	"    \"category\": {\"type\": \"string\", \"enum\": [\"security\", \"reliability\","
	"                 \"performance\", \"maintainability\", \"style\"]},"
	"    \"file\": " STR ", \"line\": {\"type\": [\"integer\", \"null\"]},"
	"    \"title\": " STR ", \"issue\": " STR ", \"suggestion\": " STR ","
	"    \"fromRules\": " STRINGS ", \"sources\": " STRINGS "}}}}}";

static const char fix_schema[] =
	"{\"type\": \"object\", \"additionalProperties\": false,"
	" \"required\": [\"fixed_code\", \"explanation\"],"
	" \"properties\": {\"fixed_code\": " STR ", \"explanation\": " STR "}}";

static const char fixdetect_schema[] =
	"{\"type\": \"object\", \"additionalProperties\": false,"
	" \"required\": [\"was_fixed\", \"fix_type\", \"explanation\", \"evidence\"],"
	" \"properties\": {"
	"  \"was_fixed\": {\"type\": \"boolean\"},"
	"  \"fix_type\": {\"type\": [\"string\", \"null\"],"
	"   \"enum\": [\"CODE_CHANGE\", \"THREADLINE_CHANGED\", \"THREADLINE_DELETED\", null]},"
	"  \"explanation\": " STR ","
	"  \"evidence\": {\"type\": \"object\", \"additionalProperties\": false,"
	"   \"required\": [\"files_changed\", \"code_snippets\", \"threadline_changes\"],"
	"   \"properties\": {\"files_changed\": " STRINGS ", \"code_snippets\": " STRINGS ","
	"    \"threadline_changes\": " STR "}}}}";

static const char *const texts[] = { map_schema, reduce_schema, fix_schema, fixdetect_schema };

static const char *const kinds[] = {
#define SCHEMA_KIND(id, kind, name) kind,
	SCHEMA_LIST(SCHEMA_KIND)
#undef SCHEMA_KIND
};

static const char *const names[] = {
#define SCHEMA_NAME(id, kind, name) name,
	SCHEMA_LIST(SCHEMA_NAME)
#undef SCHEMA_NAME
};

static json_t *parsed[SCHEMA_COUNT];

const json_t *schema_get(enum schema_kind kind)
{
	if ((unsigned)kind >= SCHEMA_COUNT)
		return NULL;
	if (!parsed[kind])
		parsed[kind] = json_loads(texts[kind], 0, NULL);
	return parsed[kind];
}

const char *schema_name(enum schema_kind kind)
{
	return (unsigned)kind < SCHEMA_COUNT ? names[kind] : "answer";
}

const char *schema_kind_name(enum schema_kind kind)
{
	return (unsigned)kind < SCHEMA_COUNT ? kinds[kind] : "unknown";
}
