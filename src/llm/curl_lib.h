#ifndef REVLINE_CURL_LIB_H
#define REVLINE_CURL_LIB_H

#include <curl/curl.h>

/*
 * libcurl, loaded the first time a request is made (dl.h: it is not
 * linked, so that a start that makes none does not pay for it). Every call
 * goes through the table, typed from <curl/curl.h>: libcurl.easy_init() is
 * curl_easy_init(). The table is filled by curl_lib_load(), which sched
 * and llm call before their first libcurl call.
 *
 * The calls lose curl's typecheck-gcc.h (a macro on the plain names):
 * curl_easy_setopt's value must be what the option takes, a long as a long.
 */
#define CURL_LIB_FUNCTIONS(X) \
	X(global_init) X(global_cleanup) \
	X(easy_init) X(easy_cleanup) X(easy_setopt) X(easy_getinfo) X(easy_perform) X(easy_strerror) \
	X(multi_init) X(multi_cleanup) X(multi_add_handle) X(multi_remove_handle) X(multi_setopt) \
	X(multi_socket_action) X(multi_info_read) X(multi_strerror) \
	X(slist_append) X(slist_free_all)

struct curl_lib {
#define CURL_LIB_SLOT(fn) __typeof__(curl_##fn) *fn;
	CURL_LIB_FUNCTIONS(CURL_LIB_SLOT)
#undef CURL_LIB_SLOT
};

extern struct curl_lib libcurl;

/* Loads libcurl once (dl_load): RL_ECONFIG saying what to install when it cannot be. */
int curl_lib_load(void);

#endif
