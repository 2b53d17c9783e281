/* Secrets never leave: the registry, its forms, and the boundaries that use it. */
#include "testlib.h"

#include "ask.h"
#include "llm.h"
#include "secret.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

#define KEY "sk-test-SECRET-0123456789"

static int reset(void **state)
{
	(void)state;
	secret_clear();
	error_clear();
	return 0;
}

static void assert_redacted(const char *in, const char *want)
{
	struct buf b = BUF_INIT;

	assert_int_equal(buf_puts(&b, in), 0);
	secret_redact(&b);
	assert_string_equal(b.ptr, want);
	assert_int_equal(b.len, strlen(want));
	buf_release(&b);
}

static void test_nothing_registered(void **state)
{
	struct buf tmp = BUF_INIT;
	const char *s = "Bearer " KEY;

	(void)state;
	assert_false(secret_in(s, strlen(s)));
	assert_redacted(s, s);
	assert_ptr_equal(secret_scrub(&tmp, s), s);
	assert_int_equal(secret_add(NULL), 0);
	assert_int_equal(secret_add(""), 0);
	assert_false(secret_in(s, strlen(s)));
}

static void test_every_occurrence(void **state)
{
	(void)state;
	assert_int_equal(secret_add(KEY), 0);
	assert_int_equal(secret_add(KEY), 0);
	assert_true(secret_in(KEY, strlen(KEY)));
	assert_false(secret_in(KEY, strlen(KEY) - 1));
	assert_redacted(KEY, SECRET_MARKER);
	assert_redacted("Incorrect API key provided: " KEY ". Again: " KEY KEY,
			"Incorrect API key provided: " SECRET_MARKER ". Again: " SECRET_MARKER SECRET_MARKER);
	assert_redacted("sk-test-SECRET-012345678", "sk-test-SECRET-012345678");
	/* A long key is hidden inside a longer word too. */
	assert_redacted("x" KEY "y", "x" SECRET_MARKER "y");
}

static void test_escaped_forms(void **state)
{
	(void)state;
	assert_int_equal(secret_add("ab/cd\"ef\\gh+ij"), 0);
	assert_redacted("raw ab/cd\"ef\\gh+ij.", "raw " SECRET_MARKER ".");
	assert_redacted("{\"k\":\"ab/cd\\\"ef\\\\gh+ij\"}", "{\"k\":\"" SECRET_MARKER "\"}");
	assert_redacted("{\"k\":\"ab\\/cd\\\"ef\\\\gh+ij\"}", "{\"k\":\"" SECRET_MARKER "\"}");
	assert_redacted("?key=ab%2Fcd%22ef%5Cgh%2Bij&x", "?key=" SECRET_MARKER "&x");
}

static void test_short_key_as_a_word(void **state)
{
	(void)state;
	assert_int_equal(secret_add("x1"), 0);
	assert_redacted("key x1 refused", "key " SECRET_MARKER " refused");
	assert_redacted("\"x1\"", "\"" SECRET_MARKER "\"");
	assert_redacted("x1", SECRET_MARKER);
	assert_redacted("ax1 x1b x1-y _x1", "ax1 x1b x1-y _x1");
}

static void test_scrub_and_copy(void **state)
{
	struct buf tmp = BUF_INIT;
	char small[12], big[64];

	(void)state;
	assert_int_equal(secret_add(KEY), 0);
	assert_string_equal(secret_scrub(&tmp, "a " KEY " b"), "a " SECRET_MARKER " b");
	buf_release(&tmp);
	assert_string_equal(secret_scrub(&tmp, "clean"), "clean");
	assert_int_equal(secret_copy(big, sizeof(big), "k=" KEY, strlen(KEY) + 2),
			 strlen(SECRET_MARKER) + 2);
	assert_string_equal(big, "k=" SECRET_MARKER);
	/* Cut to fit: never a part of the key, at most a part of the marker. */
	secret_copy(small, sizeof(small), "k=" KEY, strlen(KEY) + 2);
	assert_string_equal(small, "k=[api key ");
}

static void test_error_messages(void **state)
{
	char *long_text = malloc(2000);

	(void)state;
	assert_int_equal(secret_add(KEY), 0);
	error_set(RL_ERROR, "HTTP 401: Incorrect API key provided: %s", KEY);
	assert_string_equal(error_message(), "HTTP 401: Incorrect API key provided: " SECRET_MARKER);
	/* A key across the 1024-byte cut of the message: no part of it is kept. */
	memset(long_text, 'a', 1010);
	long_text[1010] = '\0';
	error_set(RL_ERROR, "%s %s tail", long_text, KEY);
	assert_null(strstr(error_message(), "sk-test"));
	assert_non_null(strstr(error_message(), "[api key"));
	/* A message that quotes the previous one. */
	error_set(RL_ERROR, "HTTP 401: %s", KEY);
	error_set(RL_ERROR, "the check failed: %s", error_message());
	assert_string_equal(error_message(), "the check failed: HTTP 401: " SECRET_MARKER);
	free(long_text);
}

static void test_server_text(void **state)
{
	const char *answer = "{\"choices\":[{\"message\":{\"content\":\"{\\\"reasoning\\\": \\\"the key "
		KEY " is in the code\\\"}\"}}]}";
	const char *refusal = "{\"error\":{\"message\":\"Incorrect API key provided: " KEY "\"}}";
	const char *raw = "<html>bad key " KEY "</html>";
	struct reading reply;
	struct buf why = BUF_INIT;

	(void)state;
	assert_int_equal(secret_add(KEY), 0);
	assert_int_equal(ask_read_body(&reply, &provider_openai, answer, strlen(answer)), 0);
	assert_string_equal(reply.text.ptr, "{\"reasoning\": \"the key " SECRET_MARKER " is in the code\"}");
	reading_release(&reply);
	llm_error_text(&why, 401, refusal, strlen(refusal));
	assert_string_equal(why.ptr, "HTTP 401: Incorrect API key provided: " SECRET_MARKER);
	buf_clear(&why);
	llm_error_text(&why, 500, raw, strlen(raw));
	assert_string_equal(why.ptr, "HTTP 500: <html>bad key " SECRET_MARKER "</html>");
	buf_release(&why);
	assert_int_equal(ask_read_body(&reply, &provider_openai, raw, strlen(raw)), RL_EPARSE);
	reading_release(&reply);
	assert_null(strstr(error_message(), "sk-test"));
	assert_non_null(strstr(error_message(), SECRET_MARKER));
}

/* The key is registered as it is read, from the environment. */
static void test_key_registered_on_load(void **state)
{
	struct llm_config c;

	(void)state;
	setenv("HOME", "/nonexistent-revline-home", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	unsetenv("REVLINE_PROVIDER");
	unsetenv("ANTHROPIC_API_KEY");
	setenv("OPENAI_API_KEY", KEY, 1);
	assert_false(secret_in(KEY, strlen(KEY)));
	assert_int_equal(llm_config_load(&c, NULL), 0);
	llm_config_release(&c);
	assert_true(secret_in(KEY, strlen(KEY)));
	unsetenv("OPENAI_API_KEY");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_nothing_registered, reset),
		cmocka_unit_test_setup(test_every_occurrence, reset),
		cmocka_unit_test_setup(test_escaped_forms, reset),
		cmocka_unit_test_setup(test_short_key_as_a_word, reset),
		cmocka_unit_test_setup(test_scrub_and_copy, reset),
		cmocka_unit_test_setup(test_error_messages, reset),
		cmocka_unit_test_setup(test_server_text, reset),
		cmocka_unit_test_setup(test_key_registered_on_load, reset),
	};

	return cmocka_run_group_tests(tests, NULL, reset);
}
