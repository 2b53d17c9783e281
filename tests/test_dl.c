#include "testlib.h"

#include <pthread.h>
#include <string.h>

#include "backend_pg_lib.h"
#include "curl_lib.h"
#include "dl.h"
#include "status.h"

/* dl_load: a library loaded when first needed, its functions put in a table. */

/* zlib: in every process here (libgit2's), and small. */
static const char *(*zlib_version)(void);
static unsigned long (*zlib_adler)(unsigned long, const unsigned char *, unsigned int);

static void test_loads_and_calls(void **state)
{
	const struct dl_fn fns[] = { { "zlibVersion", &zlib_version }, { "adler32", &zlib_adler } };
	struct dl_lib lib = { "libz.so.1", "the test's zlib", "zlib1g", fns, 2, 0 };

	(void)state;
	zlib_version = NULL;
	assert_int_equal(dl_load(&lib), 0);
	assert_int_equal(lib.loaded, 1);
	assert_non_null(zlib_version);
	assert_true(zlib_version()[0] >= '1');
	/* Adler-32 of "Wikipedia": the algorithm's own example. */
	assert_int_equal(zlib_adler(1, (const unsigned char *)"Wikipedia", 9), 0x11E60398);
	/* Once loaded, a second call changes nothing. */
	zlib_version = NULL;
	assert_int_equal(dl_load(&lib), 0);
	assert_null(zlib_version);
}

static void test_absent_library(void **state)
{
	static void (*slot)(void);
	const struct dl_fn fns[] = { { "nothing", &slot } };
	struct dl_lib lib = { "librevline-absent.so.9", "what the test needs it for", "revline-absent9", fns, 1, 0 };
	const char *msg;

	(void)state;
	assert_int_equal(dl_load(&lib), RL_ECONFIG);
	msg = error_message();
	assert_non_null(strstr(msg, "cannot load librevline-absent.so.9, what the test needs it for: "));
	assert_non_null(strstr(msg, "install it (Debian: apt-get install revline-absent9)"));
	assert_int_equal(lib.loaded, 0);
	assert_null(slot);
	/* Not remembered: the next call tries again (and fails again). */
	assert_int_equal(dl_load(&lib), RL_ECONFIG);
}

static void test_absent_symbol(void **state)
{
	static const char *(*version)(void);
	static void (*missing)(void);
	const struct dl_fn fns[] = { { "zlibVersion", &version }, { "revline_no_such_symbol", &missing } };
	struct dl_lib lib = { "libz.so.1", "the test's zlib", "zlib1g", fns, 2, 0 };

	(void)state;
	assert_int_equal(dl_load(&lib), RL_ECONFIG);
	assert_non_null(strstr(error_message(), "revline_no_such_symbol"));
	assert_non_null(strstr(error_message(), "cannot load libz.so.1"));
	assert_int_equal(lib.loaded, 0);
	assert_null(missing);
}

struct race {
	struct dl_lib *lib;
	int rc;
};

static void *race_load(void *ctx)
{
	struct race *r = ctx;

	r->rc = dl_load(r->lib);
	return NULL;
}

static void test_threads_load_once(void **state)
{
	static const char *(*version)(void);
	const struct dl_fn fns[] = { { "zlibVersion", &version } };
	struct dl_lib lib = { "libz.so.1", "the test's zlib", "zlib1g", fns, 1, 0 };
	struct race races[4];
	pthread_t threads[4];
	int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		races[i] = (struct race){ &lib, -100 };
		assert_int_equal(pthread_create(&threads[i], NULL, race_load, &races[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(threads[i], NULL);
		assert_int_equal(races[i].rc, 0);
	}
	assert_int_equal(lib.loaded, 1);
	assert_non_null(version);
}

/* The two real tables: every function the engine calls is found in the library built against. */
static void test_curl_and_pq(void **state)
{
	PQconninfoOption *options, *o;
	const char *dbname = NULL;

	(void)state;
	assert_int_equal(curl_lib_load(), 0);
	assert_string_equal(libcurl.easy_strerror(CURLE_OK), "No error");
	assert_non_null(libcurl.multi_strerror);
	assert_int_equal(pg_lib_load(), 0);
	options = libpq.conninfoParse("host=/tmp dbname=team", NULL);
	assert_non_null(options);
	for (o = options; o->keyword; o++)
		if (!strcmp(o->keyword, "dbname"))
			dbname = o->val;
	assert_string_equal(dbname, "team");
	libpq.conninfoFree(options);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loads_and_calls),
		cmocka_unit_test(test_absent_library),
		cmocka_unit_test(test_absent_symbol),
		cmocka_unit_test(test_threads_load_once),
		cmocka_unit_test(test_curl_and_pq),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
