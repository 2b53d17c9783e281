#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

/* utf8_visible: what every text output of revline writes outside strings through. */

struct visible_case {
	const char *in;
	size_t len;             /* 0: strlen(in) */
	const char *out;
};

static const struct visible_case visible_cases[] = {
	/* Text stays as it is, newlines and tabs included. */
	{ "plain text", 0, "plain text" },
	{ "two\nlines\tand a tab", 0, "two\nlines\tand a tab" },
	{ "f\xc3\xaa" "ature \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80", 0,
	  "f\xc3\xaa" "ature \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80" },
	{ "", 0, "" },

	/* C0 controls as ^X: the escape sequences a model or a file can carry. */
	{ "\033]52;c;cHduZWQ=\a", 0, "^[]52;c;cHduZWQ=^G" },
	{ "\033]0;pwned\a", 0, "^[]0;pwned^G" },
	{ "\033[2J\033[H", 0, "^[[2J^[[H" },
	{ "over\rwrite", 0, "over^Mwrite" },
	{ "back\bspace\x0b\x0c", 0, "back^Hspace^K^L" },
	{ "nul\0here", 8, "nul^@here" },
	{ "\x1f", 0, "^_" },
	{ "del\x7f", 0, "del^?" },

	/* C1 controls (as UTF-8) and the bidirectional overrides and isolates as <U+XXXX>. */
	{ "\xc2\x9b" "31m", 0, "<U+009B>31m" },
	{ "\xc2\x9d" "0;t\xc2\x9c", 0, "<U+009D>0;t<U+009C>" },
	{ "\xc2\x80\xc2\x85\xc2\x9f", 0, "<U+0080><U+0085><U+009F>" },
	{ "\xc2\xa0nbsp", 0, "\xc2\xa0nbsp" },
	{ "abc\xe2\x80\xae" "cba", 0, "abc<U+202E>cba" },
	{ "\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad", 0, "<U+202A><U+202B><U+202C><U+202D>" },
	{ "\xe2\x81\xa6x\xe2\x81\xa9", 0, "<U+2066>x<U+2069>" },
	{ "\xe2\x81\xa7\xe2\x81\xa8", 0, "<U+2067><U+2068>" },
	/* Their neighbours are ordinary characters. */
	{ "\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa", 0, "\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa" },

	/* Invalid UTF-8 as U+FFFD: a lone 8-bit CSI is no CSI on any terminal. */
	{ "\x9b" "2J", 0, "\xef\xbf\xbd" "2J" },
	{ "\xc0\x9b", 0, "\xef\xbf\xbd\xef\xbf\xbd" },
	{ "cut \xe2\x80", 0, "cut \xef\xbf\xbd\xef\xbf\xbd" },
	{ "\xed\xa0\x80", 0, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
	{ "\xff", 0, "\xef\xbf\xbd" },
};

static void test_visible_cases(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(visible_cases) / sizeof(visible_cases[0]); i++) {
		const struct visible_case *c = &visible_cases[i];
		struct buf out = BUF_INIT;

		assert_int_equal(utf8_visible(&out, c->in, c->len ? c->len : strlen(c->in)), 0);
		if (out.len != strlen(c->out) || memcmp(out.ptr ? out.ptr : "", c->out, out.len)) {
			fprintf(stderr, "case %zu: got \"%.*s\", expected \"%s\"\n", i, (int)out.len,
				out.ptr ? out.ptr : "", c->out);
			fail();
		}
		buf_release(&out);
	}
}

static void test_visible_appends(void **state)
{
	struct buf out = BUF_INIT;

	(void)state;
	assert_int_equal(buf_puts(&out, "revline: "), 0);
	assert_int_equal(utf8_visible(&out, "\033[2J", 4), 0);
	assert_int_equal(out.len, strlen("revline: ^[[2J"));
	assert_memory_equal(out.ptr, "revline: ^[[2J", out.len);
	buf_release(&out);
}

/* Whether s holds a byte or a character that can drive a terminal. */
static bool drives_terminal(const char *s, size_t len)
{
	size_t i, n;
	uint32_t cp;

	for (i = 0; i < len; i += n) {
		unsigned char c = (unsigned char)s[i];

		n = 1;
		if (c < 0x80) {
			if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
				return true;
			continue;
		}
		if (!(n = utf8_decode(&cp, s + i, len - i)))
			return true;  /* invalid bytes (a lone 0x9b) must not pass either */
		if (cp <= 0x9f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
			return true;
	}
	return false;
}

/*
 * Random bytes, weighted toward the dangerous ones: whatever comes in,
 * what comes out is valid UTF-8 with no control character but newline and
 * tab, and every printable ASCII byte of the input is still there.
 */
static void test_visible_random(void **state)
{
	static const char pieces[][4] = { "\033", "\x9b", "\xc2\x9b", "\xe2\x80\xae", "\xe2\x81\xa6",
					  "\r", "\a", "\x7f", "\xc2", "\xe2\x80", "a", "\n", "\xc3\xa9" };
	unsigned seed = 11;
	int round;

	(void)state;
	for (round = 0; round < 5000; round++) {
		struct buf in = BUF_INIT, out = BUF_INIT;
		size_t k, parts = (size_t)(rand_r(&seed) % 24), letters = 0, kept = 0;

		for (k = 0; k < parts; k++) {
			if (rand_r(&seed) % 3 == 0) {
				char byte = (char)(rand_r(&seed) & 0xff);

				assert_int_equal(buf_put(&in, &byte, 1), 0);
			} else {
				assert_int_equal(buf_puts(&in, pieces[rand_r(&seed) % 13]), 0);
			}
		}
		assert_int_equal(utf8_visible(&out, in.ptr ? in.ptr : "", in.len), 0);
		assert_false(drives_terminal(out.ptr ? out.ptr : "", out.len));
		assert_true(utf8_valid(out.ptr ? out.ptr : "", out.len));
		for (k = 0; k < in.len; k++)
			letters += in.ptr[k] >= 'a' && in.ptr[k] <= 'z';
		for (k = 0; k < out.len; k++)
			kept += out.ptr[k] >= 'a' && out.ptr[k] <= 'z';
		assert_true(kept >= letters);
		buf_release(&in);
		buf_release(&out);
	}
}

/* utf8_reveal: the characters that hide or reorder text, and only they, as <U+XXXX>. */
static void test_reveal(void **state)
{
	static const struct visible_case cases[] = {
		{ "is_\xe2\x80\x8b" "admin", 0, "is_<U+200B>admin" },
		{ "\xe2\x80\x8c\xe2\x80\x8d\xe2\x81\xa0\xef\xbb\xbf", 0, "<U+200C><U+200D><U+2060><U+FEFF>" },
		{ "\"user\xe2\x80\xae \xe2\x81\xa6// admin\xe2\x81\xa9 \xe2\x81\xa6\"", 0,
		  "\"user<U+202E> <U+2066>// admin<U+2069> <U+2066>\"" },
		/* Controls, C1 codes, invalid bytes and the neighbours of the hidden ones stay as they are. */
		{ "a\rb\033\xc2\x9b\xff\xe2\x80\x8a\xe2\x80\x8e\xef\xbb\xbe", 0,
		  "a\rb\033\xc2\x9b\xff\xe2\x80\x8a\xe2\x80\x8e\xef\xbb\xbe" },
		{ "cut \xe2\x80", 0, "cut \xe2\x80" },
		{ "say\xd0\x9d" "ello", 0, "say\xd0\x9d" "ello" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf out = BUF_INIT;

		assert_int_equal(utf8_reveal(&out, cases[i].in, strlen(cases[i].in)), 0);
		assert_string_equal(out.ptr ? out.ptr : "", cases[i].out);
		buf_release(&out);
	}
	/* And back: what utf8_reveal wrote, and any other character so named; malformed names stay as they are. */
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf out = BUF_INIT;

		assert_int_equal(utf8_unreveal(&out, cases[i].out, strlen(cases[i].out)), 0);
		assert_string_equal(out.ptr ? out.ptr : "", cases[i].in);
		buf_release(&out);
	}
	{
		static const char *const odd = "say<U+041D>ello <U+1F600><U+10FFFF> <U+D800><U+110000><U+12>"
					       "<U+1234567><U+zzzz><u+202e><U+202E <U+";
		struct buf out = BUF_INIT;

		assert_int_equal(utf8_unreveal(&out, odd, strlen(odd)), 0);
		assert_string_equal(out.ptr, "say\xd0\x9d" "ello \xf0\x9f\x98\x80\xf4\x8f\xbf\xbf <U+D800><U+110000><U+12>"
				    "<U+1234567><U+zzzz><u+202e><U+202E <U+");
		buf_release(&out);
	}
	assert_true(utf8_hides(0x202e) && utf8_hides(0x2069) && utf8_hides(0xfeff) && utf8_hides(0x200b));
	assert_false(utf8_hides(0x200e) || utf8_hides(0x2061) || utf8_hides(0x202f) || utf8_hides('a'));
}

/* The one "did you mean": the closest candidate, when near enough to be a typo. */
static const char *guess_of(const char *typed, const char *const *names)
{
	struct text_guess g;
	size_t i;

	text_guess_init(&g, typed, strlen(typed));
	for (i = 0; names[i]; i++)
		text_guess_try(&g, names[i], i);
	return text_guess_result(&g);
}

static void test_guess(void **state)
{
	static const char *const options[] = { "fail-on", "format", "output", "rule", "rules", NULL };
	static const char *const commands[] = { "check", "diff", "db", "fix", "fixes", NULL };
	struct text_guess g;

	(void)state;
	assert_string_equal(guess_of("fail-of", options), "fail-on");
	assert_string_equal(guess_of("FORMAT", options), "format");     /* the case typed does not count */
	assert_string_equal(guess_of("fail_on", options), "fail-on");   /* nor '_' for '-' */
	assert_string_equal(guess_of("rulez", options), "rule");        /* the first of two as close */
	assert_null(guess_of("zzzzzzzz", options));
	assert_string_equal(guess_of("chek", commands), "check");
	assert_string_equal(guess_of("dif", commands), "diff");
	assert_null(guess_of("dbx2", commands));                        /* a short word: one edit at most */
	assert_null(guess_of("fi", (const char *const[]){ "check", NULL }));
	assert_null(guess_of("x", (const char *const[]){ NULL }));
	/* Over text_distance's 23 bytes: no guess, not a wrong one. */
	assert_null(guess_of("abcdefghijklmnopqrstuvwxyz", (const char *const[]){ "abcdefghijklmnopqrstuvwxy", NULL }));
	text_guess_init(&g, "fixs", 4);
	text_guess_try(&g, "check", 7);
	text_guess_try(&g, "fixes", 9);
	assert_string_equal(text_guess_result(&g), "fixes");
	assert_int_equal(g.index, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_visible_cases),
		cmocka_unit_test(test_visible_appends),
		cmocka_unit_test(test_visible_random),
		cmocka_unit_test(test_reveal),
		cmocka_unit_test(test_guess),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
