/*
 * The answers' schemas: valid for OpenAI's strict structured outputs, and
 * the ones the parsers read: an answer made to each schema parses, every
 * field it names lands where the parser puts it, and the prompts ask for
 * the same fields when a server takes no schema.
 */
#include "testlib.h"

#include "answer.h"
#include "buf.h"
#include "datadir.h"
#include "reduce.h"
#include "schema.h"
#include "severity.h"
#include "status.h"

#include <string.h>

/* The first type a schema's "type" allows ("null" last). */
static const char *first_type(const json_t *schema)
{
	const json_t *type = json_object_get(schema, "type");

	return json_is_array(type) ? json_string_value(json_array_get(type, 0)) : json_string_value(type);
}

/*
 * OpenAI's strict mode: every object lists all its properties as required
 * and allows no others; every value has a type.
 */
static void assert_strict(const json_t *schema, const char *where)
{
	const char *type = first_type(schema), *key;
	const json_t *props, *value, *required;
	size_t i;

	if (!type)
		fail_msg("%s: no type", where);
	if (!strcmp(type, "array")) {
		assert_strict(json_object_get(schema, "items"), where);
		return;
	}
	if (strcmp(type, "object"))
		return;
	props = json_object_get(schema, "properties");
	required = json_object_get(schema, "required");
	if (!json_is_false(json_object_get(schema, "additionalProperties")))
		fail_msg("%s: additionalProperties is not false", where);
	if (json_array_size(required) != json_object_size(props))
		fail_msg("%s: %zu required of %zu properties", where, json_array_size(required),
			 json_object_size(props));
	json_array_foreach(required, i, value)
		if (!json_object_get(props, json_string_value(value)))
			fail_msg("%s: required %s is no property", where, json_string_value(value));
	json_object_foreach((json_t *)props, key, value)
		assert_strict(value, key);
}

/* An answer made to the schema: every field there, the first of each enum, numbers 3. */
static json_t *instance(const json_t *schema)
{
	const char *type = first_type(schema), *key;
	const json_t *value, *values = json_object_get(schema, "enum");
	json_t *out;

	if (json_array_size(values))
		return json_deep_copy(json_array_get(values, 0));
	if (!strcmp(type, "object")) {
		out = json_object();
		json_object_foreach((json_t *)json_object_get(schema, "properties"), key, value)
			json_object_set_new(out, key, instance(value));
		return out;
	}
	if (!strcmp(type, "array")) {
		/* Two items: a line range is [first, last]. */
		out = json_array();
		json_array_append_new(out, instance(json_object_get(schema, "items")));
		json_array_append_new(out, instance(json_object_get(schema, "items")));
		return out;
	}
	if (!strcmp(type, "integer"))
		return json_integer(3);
	if (!strcmp(type, "boolean"))
		return json_true();
	return json_string("x");
}

static char *instance_text(enum schema_kind kind, const char *set_key, json_t *set_value)
{
	json_t *answer = instance(schema_get(kind));
	char *text;

	if (set_key)
		json_object_set_new(answer, set_key, set_value);
	text = json_dumps(answer, JSON_COMPACT);
	json_decref(answer);
	return text;
}

static void test_strict_and_named(void **state)
{
	int k;

	(void)state;
	for (k = 0; k < SCHEMA_COUNT; k++) {
		const json_t *schema = schema_get((enum schema_kind)k);

		assert_non_null(schema);
		assert_string_equal(first_type(schema), "object");
		assert_strict(schema, schema_kind_name((enum schema_kind)k));
		/* OpenAI's names: letters, digits, _ and -. */
		assert_int_equal(strspn(schema_name((enum schema_kind)k),
					"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"),
				 strlen(schema_name((enum schema_kind)k)));
	}
}

/* The severities the map schema allows are revline's, all of them. */
static void test_map_enums_are_revlines(void **state)
{
	const json_t *finding = json_object_get(json_object_get(json_object_get(
		json_object_get(schema_get(SCHEMA_MAP), "properties"), "findings"), "items"), "properties");
	const json_t *sev = json_object_get(json_object_get(finding, "severity"), "enum");
	const json_t *status = json_object_get(json_object_get(json_object_get(schema_get(SCHEMA_MAP),
									     "properties"), "status"), "enum");
	size_t i;

	(void)state;
	assert_int_equal(json_array_size(sev), SEV_COUNT);
	for (i = 0; i < SEV_COUNT; i++) {
		enum severity parsed;

		assert_true(severity_parse(&parsed, json_string_value(json_array_get(sev, i))));
	}
	assert_int_equal(json_array_size(status), 3);
	assert_string_equal(json_string_value(json_array_get(status, 0)), rule_status_name(RULE_COMPLIANT));
	assert_string_equal(json_string_value(json_array_get(status, 1)), rule_status_name(RULE_ATTENTION));
	assert_string_equal(json_string_value(json_array_get(status, 2)), rule_status_name(RULE_NOT_RELEVANT));
}

/* A map answer made to the schema parses, every field where it belongs. */
static void test_map_answer_parses(void **state)
{
	static const struct rule rule = { .id = "r", .name = "R", .severity = SEV_MAJOR };
	char *text = instance_text(SCHEMA_MAP, "status", json_string("attention"));
	struct map_answer a;
	const struct finding *f;

	(void)state;
	assert_int_equal(answer_parse(&a, text, strlen(text), &rule), 0);
	assert_int_equal(a.status, RULE_ATTENTION);
	assert_string_equal(a.reasoning, "x");
	assert_int_equal(a.nrefs, 2);
	assert_int_equal(a.nfindings, 2);
	f = &a.findings[0];
	assert_string_equal(f->file, "x");
	assert_int_equal(f->line, 3);
	assert_int_equal(f->end_line, 3);
	assert_int_equal(f->severity, SEV_CRITICAL);
	assert_string_equal(f->title, "x");
	assert_string_equal(f->issue, "x");
	assert_string_equal(f->suggestion, "x");
	assert_string_equal(f->evidence.code_examined, "x");
	assert_int_equal(f->evidence.range_start, 3);
	assert_string_equal(f->evidence.method, "x");
	assert_true(f->evidence.checked_elsewhere);
	assert_string_equal(f->evidence.where_checked, "x");
	assert_true(f->evidence.impact);
	answer_release(&a);
	free(text);
}

/* A reduce answer made to the schema parses, its merged finding kept. */
static void test_reduce_answer_parses(void **state)
{
	struct finding input = { .rule_id = "r", .file = "x", .line = 3, .end_line = 3, .severity = SEV_MAJOR,
				 .title = "x", .verified = true };
	json_t *answer = instance(schema_get(SCHEMA_REDUCE));
	json_t *merged = json_array_get(json_object_get(answer, "findings"), 0);
	struct report r;
	char *text;

	(void)state;
	json_object_set_new(merged, "sources", json_pack("[s]", "f1"));
	json_object_set_new(merged, "fromRules", json_pack("[s]", "r"));
	text = json_dumps(answer, JSON_COMPACT);
	assert_int_equal(reduce_parse(&r, text, strlen(text), &input, 1), 0);
	assert_true(r.synthesized);
	assert_string_equal(r.summary, "x");
	assert_string_equal(r.overall_severity, "clean");
	assert_true(r.nmust_fix >= 1);
	assert_true(r.nfindings >= 1);
	assert_string_equal(r.findings[0].title, "x");
	assert_string_equal(r.findings[0].category, "security");
	report_release(&r);
	free(text);
	json_decref(answer);
}

/* A server without schemas gets the prompt alone: it asks for every field the schema names. */
static void test_prompts_ask_for_the_fields(void **state)
{
	static const char *const templates[] = { "map", "reduce", "fix", "fixdetect" };
	int k;

	(void)state;
	setenv("REVLINE_DATADIR", TEST_SOURCE_DIR "/share", 1);
	for (k = 0; k < SCHEMA_COUNT; k++) {
		struct buf path = BUF_INIT, name = BUF_INIT, text = BUF_INIT;
		json_t *props[8];
		size_t n = 0, i;
		const char *key;
		json_t *value;

		props[n++] = json_object_get(schema_get((enum schema_kind)k), "properties");
		assert_string_equal(schema_kind_name((enum schema_kind)k), templates[k]);
		buf_printf(&name, "%s.md", templates[k]);
		assert_int_equal(datadir_file(&path, "prompts", name.ptr), 0);
		assert_int_equal(buf_read_file(&text, path.ptr), 0);
		for (i = 0; i < n; i++)
			json_object_foreach(props[i], key, value) {
				const json_t *items = json_object_get(value, "items");

				if (!strstr(text.ptr, key))
					fail_msg("%s.md does not ask for \"%s\"", templates[k], key);
				if (json_object_get(value, "properties") && n < 8)
					props[n++] = json_object_get(value, "properties");
				if (json_object_get(items, "properties") && n < 8)
					props[n++] = json_object_get(items, "properties");
			}
		buf_release(&path);
		buf_release(&name);
		buf_release(&text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strict_and_named),
		cmocka_unit_test(test_map_enums_are_revlines),
		cmocka_unit_test(test_map_answer_parses),
		cmocka_unit_test(test_reduce_answer_parses),
		cmocka_unit_test(test_prompts_ask_for_the_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
