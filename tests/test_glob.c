#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glob.h"
#include "status.h"

struct match_case {
	const char *pattern;
	const char *path;
	bool expected;
};

static const struct match_case match_cases[] = {
	/* The seed's examples. Unlike its naive converter ("**" to ".*", "*"
	 * to "[^/]*", "?" to "."), "**" + "/" also takes zero directories, a
	 * pattern without a slash matches at any depth and '?' is not '/'. */
	{ "**/*.ts", "a.ts", true },
	{ "**/*.ts", "src/a.ts", true },
	{ "**/*.ts", "src/deep/er/a.ts", true },
	{ "**/*.ts", "src/a.tsx", false },
	{ "**/*.ts", "src/a.ts.bak", false },
	{ "*.ts", "a.ts", true },
	{ "*.ts", "src/a.ts", true },
	{ "*.ts", "src/a.js", false },
	{ "*.js", "lib/x/y.js", true },
	{ "*.js", "lib/x/y.json", false },
	{ "**/*.md", "README.md", true },
	{ "**/*.md", "docs/guide/intro.md", true },
	{ "**/*.md", "docs/guide/intro.mdx", false },
	{ "src/*.ts", "src/a/b.ts", false },
	{ "a?b", "a/b", false },

	/* '*' */
	{ "*", "a", true },
	{ "*", "a/b/c", true },
	{ "a*", "abc", true },
	{ "a*c", "abbbc", true },
	{ "a*c", "ac", true },
	{ "a*c", "ab/c", false },
	{ "*.c", ".c", true },
	{ "*.c", ".hidden/x.c", true },
	{ "src/*.c", "src/a.c", true },
	{ "src/*.c", "src/a.h", false },
	{ "src/*.c", "lib/src/a.c", false },
	{ "*a*a*a*b", "aaaaab", true },
	{ "*a*a*a*b", "aaaaa", false },

	/* '?' */
	{ "?.c", "a.c", true },
	{ "?.c", "ab.c", false },
	{ "???", "abc", true },
	{ "???", "ab", false },

	/* classes */
	{ "[abc].c", "b.c", true },
	{ "[abc].c", "d.c", false },
	{ "[a-c]x", "bx", true },
	{ "[a-c]x", "dx", false },
	{ "[!a-c]x", "dx", true },
	{ "[!a-c]x", "bx", false },
	{ "[^a-c]x", "dx", true },
	{ "[^a-c]x", "ax", false },
	{ "[]]x", "]x", true },
	{ "[!]]x", "ax", true },
	{ "[!]]x", "]x", false },
	{ "[a-]x", "-x", true },
	{ "[\\]]x", "]x", true },
	{ "[a\\-z]", "-", true },
	{ "[a\\-z]", "m", false },
	{ "[[:alpha:]]1", "q1", true },
	{ "[[:alpha:]]1", "41", false },
	{ "[[:digit:]][[:digit:]]", "42", true },
	{ "[[:digit:]][[:digit:]]", "4x", false },
	{ "[[:alnum:]_]*", "_x", true },
	{ "[[:alnum:]_]*", "-x", false },
	{ "[[:upper:]]*", "Makefile", true },
	{ "[[:upper:]]*", "makefile", false },
	{ "[[:lower:]]*", "makefile", true },
	{ "a[[:space:]]b", "a b", true },
	{ "a[[:space:]]b", "a_b", false },
	{ "a[[:punct:]]b", "a-b", true },
	{ "0x[[:xdigit:]]", "0xF", true },
	{ "0x[[:xdigit:]]", "0xg", false },
	{ "[![:digit:]]", "x", true },
	{ "[![:digit:]]", "7", false },
	{ "[[:foo:]]", "f", false },
	/* a class never matches '/', negated or not, even when listed */
	{ "a[!x]b", "a/b", false },
	{ "a[/]b", "a/b", false },
	{ "a[[:punct:]]b", "a/b", false },
	/* never closed: a literal '[' */
	{ "a[b", "a[b", false },
	{ "a[b", "ab", false },

	/* escapes */
	{ "\\*.c", "*.c", true },
	{ "\\*.c", "a.c", false },
	{ "a\\?", "a?", true },
	{ "a\\?", "ab", false },
	{ "\\[x]", "[x]", true },
	{ "\\[x]", "x", false },
	{ "\\{a,b\\}", "{a,b}", true },
	{ "\\{a,b\\}", "a", false },
	{ "\\!x", "!x", true },
	{ "a\\\\b", "a\\b", true },
	/* malformed patterns match nothing, as in git (glob_check reports them) */
	{ "a\\", "a\\", false },
	{ "a\\", "a", false },
	{ "x[[:foo:]a]", "xa", false },

	/* braces, expanded before the anchoring rule */
	{ "*.{c,h}", "a.c", true },
	{ "*.{c,h}", "src/a.h", true },
	{ "*.{c,h}", "a.o", false },
	{ "{src,lib}/*.c", "lib/a.c", true },
	{ "{src,lib}/*.c", "x/src/a.c", false },
	{ "{src/*.c,*.md}", "x/y.md", true },
	{ "{src/*.c,*.md}", "x/src/a.c", false },
	{ "{a,b/**}", "b/x/y", true },
	{ "{a,b/**}", "x/a", true },
	{ "{a,b/**}", "x/b/y", false },
	{ "src/{a,b}/**/*.c", "src/b/x/y.c", true },
	{ "src/{a,b}/**/*.c", "src/c/x/y.c", false },
	{ "{/src,docs}/", "src/a.c", true },
	{ "{/src,docs}/", "x/src/a.c", false },
	{ "{/src,docs}/", "x/docs/a.md", true },
	{ "{a,b{c,d}}.txt", "bd.txt", true },
	{ "{a,b{c,d}}.txt", "a.txt", true },
	{ "{a,b{c,d}}.txt", "b.txt", false },
	{ "{a,{b,{c,d}}}", "c", true },
	{ "{a,{b,{c,d}}}", "e", false },
	{ "x{,.bak}", "x", true },
	{ "x{,.bak}", "x.bak", true },
	{ "x{,.bak}", "x.b", false },
	{ "{[ab],c}x", "bx", true },
	{ "{[ab],c}x", "cx", true },
	{ "{a,**}/z", "q/r/z", true },
	/* no comma or no '}': literal text */
	{ "{a}", "{a}", true },
	{ "{a}", "a", false },
	{ "{a,b", "{a,b", true },
	{ "{a,b", "a", false },
	{ "a}b", "a}b", true },
	{ "{{a,b}}", "{a}", true },
	{ "{{a,b}}", "a", false },
	{ "[{]a,b}", "{a,b}", true },

	/* "**" */
	{ "**", "a/b/c", true },
	{ "**/x", "x", true },
	{ "**/x", "a/b/x", true },
	{ "**/x", "a/bx", false },
	{ "a/**/b", "a/b", true },
	{ "a/**/b", "a/x/y/b", true },
	{ "a/**/b", "a/xb", false },
	{ "a/**/b", "x/a/b", false },
	{ "a/**", "a/b/c", true },
	{ "a/**", "a", false },
	{ "a/**", "ab/c", false },
	{ "**/docs/**/*.md", "docs/a.md", true },
	{ "**/docs/**/*.md", "x/docs/y/z.md", true },
	{ "**/docs/**/*.md", "x/mydocs/z.md", false },
	{ "a/***/b", "a/x/b", true },
	/* not a whole component: any run, '/' included */
	{ "src/**.ts", "src/a/b.ts", true },
	{ "src/**.ts", "src/a.ts", true },
	{ "src/**.ts", "lib/a.ts", false },
	{ "a**b", "a/x/b", true },
	{ "a**b", "xa/b", false },
	{ "x/**y", "x/a/by", true },

	/* anchoring */
	{ "/a.c", "a.c", true },
	{ "/a.c", "src/a.c", false },
	{ "/src/*.c", "src/a.c", true },
	{ "./a.c", "src/a.c", true },
	{ "./src/*.c", "src/a.c", true },
	{ "./src/*.c", "x/src/a.c", false },
	{ "src/lib", "x/src/lib", false },

	/* trailing slash: a directory */
	{ "docs/", "docs/a.md", true },
	{ "docs/", "x/docs/b/c.md", true },
	{ "docs/", "docs", false },
	{ "docs/", "mydocs/a.md", false },
	{ "/src/", "src/a.c", true },
	{ "/src/", "x/src/a.c", false },
	{ "src/lib/", "src/lib/a.c", true },
	{ "src/lib/", "x/src/lib/a.c", false },
	{ "*.d/", "conf.d/x", true },
	{ "*.d/", "conf.d", false },

	/* a matched leading directory takes the path */
	{ "docs", "docs", true },
	{ "docs", "docs/a.md", true },
	{ "docs", "x/docs/a.md", true },
	{ "doc", "docs/a.md", false },
	{ "src/*", "src/a/b.c", true },
	{ "build", "build.log", false },
	{ "*.ts", "src/a.ts/b.c", true },

	/* UTF-8: '?' and classes take whole characters */
	{ "*.md", "docs/r\xc3\xa9sum\xc3\xa9.md", true },
	{ "r?sum?.md", "r\xc3\xa9sum\xc3\xa9.md", true },
	{ "r??sum??.md", "r\xc3\xa9sum\xc3\xa9.md", false },
	{ "[\xc3\xa9\xc3\xa8]t[\xc3\xa9\xc3\xa8]", "\xc3\xa9t\xc3\xa9", true },
	{ "[a-z]t", "\xc3\xa9t", false },
	{ "[!a-z]t", "\xc3\xa9t", true },
	{ "\xe6\x96\x87\xe6\xa1\xa3/*", "\xe6\x96\x87\xe6\xa1\xa3/a.md", true },
	{ "*.md", "\xe6\x97\xa5\xe6\x9c\xac/\xe8\xaa\xac\xe6\x98\x8e.md", true },
	{ "?", "\xf0\x9f\x98\x80", true },
	/* bytes that are not UTF-8 are characters of their own */
	{ "?", "\xff", true },
	{ "??", "\xc3", false },
	{ "\xff*", "\xff" "abc", true },
	{ "\xc3\xa9", "\xc3\xa8", false },
	/* an overlong '/' is not a '/' */
	{ "a?b", "a\xc0\xaf" "b", false },
	{ "a??b", "a\xc0\xaf" "b", true },

	/* case-sensitive; empty things match nothing */
	{ "*.TS", "a.ts", false },
	{ "README", "readme", false },
	{ "", "a", false },
	{ "*", "", false },
	{ "/", "a", false },
	{ "./", "a", false },
};

static void test_match_table(void **state)
{
	size_t i, failed = 0;

	(void)state;
	for (i = 0; i < sizeof(match_cases) / sizeof(match_cases[0]); i++) {
		const struct match_case *c = &match_cases[i];

		if (glob_match(c->pattern, c->path) != c->expected) {
			print_error("glob_match(\"%s\", \"%s\") should be %s\n",
				    c->pattern, c->path, c->expected ? "true" : "false");
			failed++;
		}
	}
	assert_int_equal(failed, 0);
	/* The table is the specification; keep it large. */
	assert_true(i >= 80);
}

/*
 * git's own table for its wildmatch: the rows of t/t3070-wildmatch.sh (git
 * v2.39.5) whose path and pattern have no '/' (where revline's gitignore
 * rules, a pattern matching a leading directory or at any depth, are not
 * wildmatch's) and whose path is not empty, with wildmatch's answer (its
 * first column, "glob"); the comments give the line in that file. Two rows
 * with a slash about a trailing backslash are added by hand.
 */
static const struct match_case wildmatch_cases[] = {
	{ "foo", "foo", true }, /* line 225 */
	{ "bar", "foo", false }, /* line 226 */
	{ "???", "foo", true }, /* line 228 */
	{ "??", "foo", false }, /* line 229 */
	{ "*", "foo", true }, /* line 230 */
	{ "f*", "foo", true }, /* line 231 */
	{ "*f", "foo", false }, /* line 232 */
	{ "*foo*", "foo", true }, /* line 233 */
	{ "*ob*a*r*", "foobar", true }, /* line 234 */
	{ "*ab", "aaaaaaabababab", true }, /* line 235 */
	{ "foo\\*", "foo*", true }, /* line 236 */
	{ "foo\\*bar", "foobar", false }, /* line 237 */
	{ "f\\\\oo", "f\\oo", true }, /* line 238 */
	{ "*[al]?", "ball", true }, /* line 239 */
	{ "[ten]", "ten", false }, /* line 240 */
	{ "**[!te]", "ten", true }, /* line 241 */
	{ "**[!ten]", "ten", false }, /* line 242 */
	{ "t[a-g]n", "ten", true }, /* line 243 */
	{ "t[!a-g]n", "ten", false }, /* line 244 */
	{ "t[!a-g]n", "ton", true }, /* line 245 */
	{ "t[^a-g]n", "ton", true }, /* line 246 */
	{ "a[]]b", "a]b", true }, /* line 247 */
	{ "a[]-]b", "a-b", true }, /* line 248 */
	{ "a[]-]b", "a]b", true }, /* line 249 */
	{ "a[]-]b", "aab", false }, /* line 250 */
	{ "a[]a-]b", "aab", true }, /* line 251 */
	{ "]", "]", true }, /* line 252 */
	{ "foo**bar", "foobazbar", true }, /* line 257 */
	{ "f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", true }, /* line 268 */
	{ "a[c-c]st", "acrt", false }, /* line 285 */
	{ "a[c-c]rt", "acrt", true }, /* line 286 */
	{ "[!]-]", "]", false }, /* line 287 */
	{ "[!]-]", "a", true }, /* line 288 */
	{ "\\", "\\", false }, /* line 290 */
	{ "foo", "foo", true }, /* line 294 */
	{ "@foo", "@foo", true }, /* line 295 */
	{ "@foo", "foo", false }, /* line 296 */
	{ "\\[ab]", "[ab]", true }, /* line 297 */
	{ "[[]ab]", "[ab]", true }, /* line 298 */
	{ "[[:]ab]", "[ab]", true }, /* line 299 */
	{ "[[::]ab]", "[ab]", false }, /* line 300 */
	{ "[[:digit]ab]", "[ab]", true }, /* line 301 */
	{ "[\\[:]ab]", "[ab]", true }, /* line 302 */
	{ "\\??\\?b", "?a?b", true }, /* line 303 */
	{ "\\a\\b\\c", "abc", true }, /* line 304 */
	{ "", "foo", false }, /* line 305 */
	{ "[[:alpha:]][[:digit:]][[:upper:]]", "a1B", true }, /* line 310 */
	{ "[[:digit:][:upper:][:space:]]", "a", false }, /* line 311 */
	{ "[[:digit:][:upper:][:space:]]", "A", true }, /* line 312 */
	{ "[[:digit:][:upper:][:space:]]", "1", true }, /* line 313 */
	{ "[[:digit:][:upper:][:spaci:]]", "1", false }, /* line 314 */
	{ "[[:digit:][:upper:][:space:]]", " ", true }, /* line 315 */
	{ "[[:digit:][:upper:][:space:]]", ".", false }, /* line 316 */
	{ "[[:digit:][:punct:][:space:]]", ".", true }, /* line 317 */
	{ "[[:xdigit:]]", "5", true }, /* line 318 */
	{ "[[:xdigit:]]", "f", true }, /* line 319 */
	{ "[[:xdigit:]]", "D", true }, /* line 320 */
	{ "[[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:graph:][:lower:][:print:][:punct:][:space:][:upper:][:xdigit:]]", "_", true }, /* line 321 */
	{ "[^[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:lower:][:space:][:upper:][:xdigit:]]", ".", true }, /* line 322 */
	{ "[a-c[:digit:]x-z]", "5", true }, /* line 323 */
	{ "[a-c[:digit:]x-z]", "b", true }, /* line 324 */
	{ "[a-c[:digit:]x-z]", "y", true }, /* line 325 */
	{ "[a-c[:digit:]x-z]", "q", false }, /* line 326 */
	{ "[\\\\-^]", "]", true }, /* line 329 */
	{ "[\\\\-^]", "[", false }, /* line 330 */
	{ "[\\-_]", "-", true }, /* line 331 */
	{ "[\\]]", "]", true }, /* line 332 */
	{ "[\\]]", "\\]", false }, /* line 333 */
	{ "[\\]]", "\\", false }, /* line 334 */
	{ "a[]b", "ab", false }, /* line 335 */
	{ "a[]b", "a[]b", false }, /* line 336 */
	{ "ab[", "ab[", false }, /* line 338 */
	{ "[!", "ab", false }, /* line 340 */
	{ "[-", "ab", false }, /* line 341 */
	{ "[-]", "-", true }, /* line 342 */
	{ "[a-", "-", false }, /* line 343 */
	{ "[!a-", "-", false }, /* line 344 */
	{ "[--A]", "-", true }, /* line 345 */
	{ "[--A]", "5", true }, /* line 346 */
	{ "[ --]", " ", true }, /* line 347 */
	{ "[ --]", "$", true }, /* line 348 */
	{ "[ --]", "-", true }, /* line 349 */
	{ "[ --]", "0", false }, /* line 350 */
	{ "[---]", "-", true }, /* line 351 */
	{ "[------]", "-", true }, /* line 352 */
	{ "[a-e-n]", "j", false }, /* line 353 */
	{ "[a-e-n]", "-", true }, /* line 354 */
	{ "[!------]", "a", true }, /* line 355 */
	{ "[]-a]", "[", false }, /* line 356 */
	{ "[]-a]", "^", true }, /* line 357 */
	{ "[!]-a]", "^", false }, /* line 358 */
	{ "[!]-a]", "[", true }, /* line 359 */
	{ "[a^bc]", "^", true }, /* line 360 */
	{ "[a-]b]", "-b]", true }, /* line 361 */
	{ "[\\]", "\\", false }, /* line 362 */
	{ "[\\\\]", "\\", true }, /* line 363 */
	{ "[!\\\\]", "\\", false }, /* line 364 */
	{ "[A-\\\\]", "G", true }, /* line 365 */
	{ "b*a", "aaabbb", false }, /* line 366 */
	{ "*ba*", "aabcaa", false }, /* line 367 */
	{ "[,]", ",", true }, /* line 368 */
	{ "[\\\\,]", ",", true }, /* line 369 */
	{ "[\\\\,]", "\\", true }, /* line 370 */
	{ "[,-.]", "-", true }, /* line 371 */
	{ "[,-.]", "+", false }, /* line 372 */
	{ "[,-.]", "-.]", false }, /* line 373 */
	{ "[\\1-\\3]", "2", true }, /* line 374 */
	{ "[\\1-\\3]", "3", true }, /* line 375 */
	{ "[\\1-\\3]", "4", false }, /* line 376 */
	{ "[[-\\]]", "\\", true }, /* line 377 */
	{ "[[-\\]]", "[", true }, /* line 378 */
	{ "[[-\\]]", "]", true }, /* line 379 */
	{ "[[-\\]]", "-", false }, /* line 380 */
	{ "-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", true }, /* line 383 */
	{ "-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1", false }, /* line 384 */
	{ "*X*i", "abcXdefXghi", true }, /* line 395 */
	{ "fo", "foo", false }, /* line 401 */
	{ "[A-Z]", "a", false }, /* line 419 */
	{ "[A-Z]", "A", true }, /* line 420 */
	{ "[a-z]", "A", false }, /* line 421 */
	{ "[a-z]", "a", true }, /* line 422 */
	{ "[[:upper:]]", "a", false }, /* line 423 */
	{ "[[:upper:]]", "A", true }, /* line 424 */
	{ "[[:lower:]]", "A", false }, /* line 425 */
	{ "[[:lower:]]", "a", true }, /* line 426 */
	{ "[B-Za]", "A", false }, /* line 427 */
	{ "[B-Za]", "a", true }, /* line 428 */
	{ "[B-a]", "A", false }, /* line 429 */
	{ "[B-a]", "a", true }, /* line 430 */
	{ "[Z-y]", "z", false }, /* line 431 */
	{ "[Z-y]", "Z", true }, /* line 432 */
	{ "*/\\", "XXX/\\", false }, /* line 292 */
	{ "*/\\\\", "XXX/\\", true }, /* line 293 */
};

static void test_wildmatch_table(void **state)
{
	size_t i, failed = 0;

	(void)state;
	for (i = 0; i < sizeof(wildmatch_cases) / sizeof(wildmatch_cases[0]); i++) {
		const struct match_case *c = &wildmatch_cases[i];

		if (glob_match(c->pattern, c->path) != c->expected) {
			print_error("glob_match(\"%s\", \"%s\") should be %s, as git's wildmatch\n",
				    c->pattern, c->path, c->expected ? "true" : "false");
			failed++;
		}
	}
	assert_int_equal(failed, 0);
}

struct list_case {
	const char *patterns[4];
	size_t count;
	const char *path;
	bool expected;
};

static const struct list_case list_cases[] = {
	{ { "**/*.ts", "!**/*.test.ts" }, 2, "src/a.ts", true },
	{ { "**/*.ts", "!**/*.test.ts" }, 2, "src/a.test.ts", false },
	{ { "**/*.ts", "!**/*.test.ts" }, 2, "src/a.js", false },
	{ { "*.ts", "*.js" }, 2, "src/a.js", true },
	{ { "*.ts", "*.js" }, 2, "a.py", false },
	{ { NULL }, 0, "a", false },
	{ { "!*.ts" }, 1, "a.ts", false },
	{ { "!*.ts" }, 1, "a.js", false },
	{ { "*", "!*.log", "important.log" }, 3, "a.log", false },
	{ { "*", "!*.log", "important.log" }, 3, "important.log", true },
	{ { "*", "!*.log", "important.log" }, 3, "x.c", true },
	/* the last match wins, so order matters */
	{ { "important.log", "!*.log", "*" }, 3, "important.log", true },
	{ { "important.log", "*", "!*.log" }, 3, "important.log", false },
	/* unlike git, a file can come back from under an excluded directory */
	{ { "docs/", "!docs/keep.md" }, 2, "docs/keep.md", false },
	{ { "docs/", "!docs/keep.md" }, 2, "docs/other.md", true },
	{ { "!docs/keep.md", "docs/" }, 2, "docs/keep.md", true },
	/* "\!" is a literal '!' */
	{ { "\\!x" }, 1, "!x", true },
	{ { "!{a,b}.c" , "*.c" }, 2, "a.c", true },
	{ { "*.c", "!{a,b}.c" }, 2, "b.c", false },
	{ { "*.c", NULL }, 2, "b.c", true },
};

static void test_match_list(void **state)
{
	size_t i, failed = 0;

	(void)state;
	for (i = 0; i < sizeof(list_cases) / sizeof(list_cases[0]); i++) {
		const struct list_case *c = &list_cases[i];

		if (glob_match_list(c->patterns, c->count, c->path) != c->expected) {
			print_error("list case %zu on \"%s\" should be %s\n", i, c->path,
				    c->expected ? "true" : "false");
			failed++;
		}
	}
	assert_int_equal(failed, 0);
}

struct check_case {
	const char *pattern;
	const char *message;	/* NULL when well formed */
};

static const struct check_case check_cases[] = {
	{ "*.ts", NULL },
	{ "**/*.md", NULL },
	{ "{src,lib}/**/*.{c,h}", NULL },
	{ "[]]", NULL },
	{ "[[:alpha:]_]*", NULL },
	{ "a\\*", NULL },
	{ "\\{", NULL },
	/* a brace without a comma is literal text, and fine */
	{ "{a}", NULL },
	{ "[{]", NULL },
	{ "!x", NULL },
	{ "", "empty pattern" },
	{ "ab[c", "unclosed '[' at column 3" },
	{ "a[[:alpha:]", "unclosed '[' at column 2" },
	{ "[!]", "unclosed '[' at column 1" },
	{ "{a,[b}", "unclosed '[' at column 4" },
	{ "{a,b", "unclosed '{' at column 1" },
	{ "x{a", "unclosed '{' at column 2" },
	{ "{a,{b,c}", "unclosed '{' at column 1" },
	{ "a}", "unmatched '}' at column 2" },
	{ "abc\\", "trailing backslash at column 4" },
	{ "[[:foo:]]", "unknown character class '[:foo:]' at column 2" },
	{ "x[a[:Alpha:]]", "unknown character class '[:Alpha:]' at column 4" },
	{ "[[::]ab]", "unknown character class '[::]' at column 2" },
	{ "[[:]ab]", NULL },
	{ "[[:digit]ab]", NULL },
	/* the leftmost problem is named */
	{ "{[", "unclosed '{' at column 1" },
	{ "[{", "unclosed '[' at column 1" },
	/* columns count characters, not bytes */
	{ "\xc3\xa9\xc3\xa9[", "unclosed '[' at column 3" },
	{ "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", NULL },
	{ "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}",
	  "too many alternatives in braces (more than 1024)" },
};

static void test_check(void **state)
{
	size_t i, failed = 0;
	int err;

	(void)state;
	for (i = 0; i < sizeof(check_cases) / sizeof(check_cases[0]); i++) {
		const struct check_case *c = &check_cases[i];

		error_clear();
		err = glob_check(c->pattern);
		if (!c->message && err) {
			print_error("glob_check(\"%s\") failed: %s\n", c->pattern, error_message());
			failed++;
		} else if (c->message && (err != RL_EPARSE || strcmp(error_message(), c->message))) {
			print_error("glob_check(\"%s\") = %d \"%s\", want \"%s\"\n", c->pattern,
				    err, err ? error_message() : "", c->message);
			failed++;
		}
	}
	assert_int_equal(failed, 0);
	assert_int_equal(glob_check(NULL), RL_EPARSE);
}

/* n copies of unit, then tail; the caller frees the result. */
static char *repeat(const char *unit, size_t n, const char *tail)
{
	size_t len = strlen(unit), i;
	char *s = malloc(len * n + strlen(tail) + 1);

	assert_non_null(s);
	for (i = 0; i < n; i++)
		memcpy(s + i * len, unit, len);
	strcpy(s + len * n, tail);
	return s;
}

static void test_alternative_limit(void **state)
{
	char *pat10 = repeat("{a,b}", 10, ""), *pat11 = repeat("{a,b}", 11, "");

	(void)state;
	/* 1024 alternatives are tried; 2048 are refused and match nothing */
	assert_true(glob_match(pat10, "abababbbba"));
	assert_false(glob_match(pat11, "abababbbbaa"));
	free(pat10);
	free(pat11);
}

static void test_expansion_limit(void **state)
{
	char *big = repeat("x", 3000, ""), *small = repeat("x", 1000, "");
	char *big_pat = repeat("{a,b}", 5, big), *big_path = repeat("a", 5, big);
	char *small_pat = repeat("{a,b}", 5, small), *small_path = repeat("a", 5, small);

	(void)state;
	/* a few long alternatives cost as much as many: 32 of 3005 are too many */
	assert_false(glob_match(big_pat, big_path));
	assert_int_equal(glob_check(big_pat), RL_EPARSE);
	assert_string_equal(error_message(), "braces expand to more than 65536 characters");
	/* 32 of 1005 are fine */
	assert_true(glob_match(small_pat, small_path));
	assert_int_equal(glob_check(small_pat), 0);
	/* without a group nothing is expanded, however long */
	free(big_pat);
	big_pat = repeat(big, 30, "{a}");
	assert_int_equal(glob_check(big_pat), 0);
	assert_true(glob_match(big_pat, big_pat));
	free(big);
	free(small);
	free(big_pat);
	free(big_path);
	free(small_pat);
	free(small_path);
}

static void test_deep_braces(void **state)
{
	char *open = repeat("{a,", 1000, "b"), *pat = repeat("}", 1000, "");
	char *full = malloc(strlen(open) + strlen(pat) + 1);
	char *literal = repeat("{", 100000, "");

	(void)state;
	assert_non_null(full);
	strcpy(full, open);
	strcat(full, pat);
	/* nested 1000 deep: 1001 alternatives, no recursion */
	assert_true(glob_match(full, "b"));
	assert_true(glob_match(full, "a"));
	assert_false(glob_match(full, "c"));
	assert_int_equal(glob_check(full), 0);
	/* a long run of '{' that never closes is text */
	assert_true(glob_match(literal, literal));
	assert_int_equal(glob_check(literal), RL_EPARSE);
	assert_string_equal(error_message(), "unclosed '{' at column 1");
	free(open);
	free(pat);
	free(full);
	free(literal);
}

static void test_adversarial(void **state)
{
	char *as = repeat("a", 10000, ""), *asb = repeat("a", 10000, "b");
	char *dirs = repeat("a/", 5000, "a");
	char *stars = repeat("*a", 200, "b");
	char *globstars = repeat("**/a", 200, "/b");

	(void)state;
	assert_false(glob_match("*a*a*a*a*a*a*a*b", as));
	assert_true(glob_match("*a*a*a*a*a*a*a*b", asb));
	assert_false(glob_match("**/*a*a*a*a*a*a*b", dirs));
	assert_false(glob_match("**a**a**a**a**a**a**b", dirs));
	assert_false(glob_match(stars, as));
	assert_true(glob_match(stars, asb));
	assert_false(glob_match(globstars, dirs));
	assert_false(glob_match("{*a,*b}{*a,*b}{*a,*b}{*a,*b}{*a,*b}c", as));
	free(as);
	free(asb);
	free(dirs);
	free(stars);
	free(globstars);
}

/* The same tables through the compiled forms, each pattern compiled once and matched many times. */
static void test_compiled(void **state)
{
	struct glob *g;
	struct glob_list *l;
	size_t i, failed = 0;

	(void)state;
	for (i = 0; i < sizeof(match_cases) / sizeof(match_cases[0]); i++) {
		const struct match_case *c = &match_cases[i];

		assert_int_equal(glob_new(&g, c->pattern), 0);
		if (glob_matches(g, c->path) != c->expected || glob_matches(g, c->path) != c->expected) {
			print_error("glob_matches(\"%s\", \"%s\") should be %s\n", c->pattern, c->path,
				    c->expected ? "true" : "false");
			failed++;
		}
		assert_false(glob_matches(g, ""));
		assert_false(glob_matches(g, NULL));
		glob_free(g);
	}
	for (i = 0; i < sizeof(wildmatch_cases) / sizeof(wildmatch_cases[0]); i++) {
		assert_int_equal(glob_new(&g, wildmatch_cases[i].pattern), 0);
		failed += glob_matches(g, wildmatch_cases[i].path) != wildmatch_cases[i].expected;
		glob_free(g);
	}
	for (i = 0; i < sizeof(list_cases) / sizeof(list_cases[0]); i++) {
		const struct list_case *c = &list_cases[i];

		assert_int_equal(glob_list_new(&l, c->patterns, c->count), 0);
		if (glob_list_matches(l, c->path) != c->expected) {
			print_error("compiled list case %zu on \"%s\" should be %s\n", i, c->path,
				    c->expected ? "true" : "false");
			failed++;
		}
		glob_list_free(l);
	}
	assert_int_equal(failed, 0);
	/* A malformed pattern compiles, to one that matches nothing; no list selects nothing. */
	assert_int_equal(glob_new(&g, "src/[ab"), 0);
	assert_false(glob_matches(g, "src/[ab"));
	glob_free(g);
	assert_false(glob_list_matches(NULL, "a"));
	glob_free(NULL);
	glob_list_free(NULL);
}

/*
 * The pattern with its letters, digits, '.' (not of "./") and '_' written
 * as one-member classes ("[a]"): the same pattern to the matcher, but no
 * literal is left for a shortcut to take, so it runs as the NFA.
 */
static void nfa_form(char *out, size_t size, const char *pattern)
{
	size_t n = 0;
	const char *s;

	for (s = pattern; *s && n + 4 < size; s++) {
		bool plain = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			     (*s >= '0' && *s <= '9') || (*s == '.' && s[1] != '/') || *s == '_';

		if (*s == '\\' && s[1]) {
			out[n++] = *s++;
			out[n++] = *s;
		} else if (plain) {
			out[n++] = '[';
			out[n++] = *s;
			out[n++] = ']';
		} else {
			out[n++] = *s;
		}
	}
	out[n] = '\0';
}

/*
 * The shortcuts (a component, a literal path, everything) answer as the NFA
 * does, on the edges: an empty first component, a trailing slash, "x/" +
 * "**", empty components, bytes that are not UTF-8, a path too deep to
 * split.
 */
static void test_shortcuts(void **state)
{
	static const char *const patterns[] = {
		"*.c", "**/*.c", "/*.c", "*.c/", "**/*.c/", "Makefile", "/Makefile", "**/Makefile",
		"Makefile/", "test_*.py", "**/test_*.py", "*_test.*", "**/*{_test,.test,.spec,_spec}.*",
		"*a*b*", "a*", "**/.env*", "docs/api", "/docs/api", "docs/api/", "docs/**", "/docs/**",
		"docs/api/**", "**/tests/**", "**/{test,tests,fixtures}/**", "*/**", "/*/**", "x/**/",
		"**", "/**", "**/**", "**/", "*", "*/", "a/*.c", "**/a/*.c", "./docs/", "\\*.c",
		"**/*.{c,h,cc,py,rb}", "**/{openapi,swagger}*.{yml,yaml,json}", "**/*.min.js",
		"é*", "*\xc3\xa9", "*\xa9", "*\xc3", "a\\/**",
	};
	static const char *const paths[] = {
		"a.c", "src/a.c", "src/a.c/b", "a.c/b", "/a.c", "a.cc", ".c", "src/.c", "Makefile",
		"x/Makefile", "Makefile/x", "x/Makefile/y", "test_a.py", "t/test_.py", "a_test.go",
		"x/a.spec.ts", "ab", "xaxbx", "ba", ".env", "x/.env.local", "docs/api", "docs/api/x",
		"docs/apix", "x/docs/api", "docs", "docs/", "tests/a", "a/tests", "a/tests/b", "/x",
		"x/", "x//y", "//", "/", "a//b.c", "é.c", "x/\xc3\xa9", "\xc3\xa9", "a\xc3", "a\xc3/b",
		"\xff.c", "src/openapi.yml", "swagger-v2.json", "a/b/c.min.js", "a/\\", "a/",
	};
	char nfa[256], deep[4096];
	size_t i, j, failed = 0;
	struct glob *g, *h;

	(void)state;
	for (i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
		nfa_form(nfa, sizeof(nfa), patterns[i]);
		assert_int_equal(glob_new(&g, patterns[i]), 0);
		assert_int_equal(glob_new(&h, nfa), 0);
		for (j = 0; j < sizeof(paths) / sizeof(paths[0]); j++)
			if (glob_matches(g, paths[j]) != glob_matches(h, paths[j])) {
				print_error("\"%s\" and \"%s\" differ on \"%s\"\n", patterns[i], nfa, paths[j]);
				failed++;
			}
		glob_free(g);
		glob_free(h);
	}
	assert_int_equal(failed, 0);
	/* Shortcut and NFA meet: a byte that is half of "é" is not a character of it. */
	assert_false(glob_match("*\xa9", "\xc3\xa9"));
	assert_true(glob_match("*\xc3\xa9", "x\xc3\xa9"));
	assert_true(glob_match("*.c/", "a.c/b"));
	assert_false(glob_match("*.c/", "a.c"));
	assert_true(glob_match("*/**", "/x"));
	assert_false(glob_match("*/", "/x"));
	/* Deeper than a path is split for the shortcuts: the NFA answers. */
	strcpy(deep, "");
	for (i = 0; i < 100; i++)
		strcat(deep, i == 70 ? "tests/" : "d/");
	strcat(deep, "a.c");
	assert_true(glob_match("**/tests/**", deep));
	assert_true(glob_match("**/*.c", deep));
	assert_false(glob_match("**/*.h", deep));
	assert_false(glob_match("**/spec/**", deep));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_table),
		cmocka_unit_test(test_wildmatch_table),
		cmocka_unit_test(test_match_list),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_alternative_limit),
		cmocka_unit_test(test_expansion_limit),
		cmocka_unit_test(test_deep_braces),
		cmocka_unit_test(test_adversarial),
		cmocka_unit_test(test_compiled),
		cmocka_unit_test(test_shortcuts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
