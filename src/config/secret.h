#ifndef REVLINE_SECRET_H
#define REVLINE_SECRET_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The secrets of this process: the API key, whether it came from the
 * environment or from what revline.apiKeyCommand printed. None of them may
 * leave revline, even when a server echoes one back in an error body or an
 * answer, so every boundary where text is printed, stored or kept replaces
 * each occurrence with SECRET_MARKER: error_set (every message), an
 * answer's text and an error body as llm.c reads them, store_bind_text,
 * and the CLI's term_write. No child process (child.h) gets a variable
 * of the environment whose value holds one.
 *
 * A secret is matched as it is, JSON-escaped (with and without "\/") and
 * URL-encoded, when those forms differ. One shorter than SECRET_SHORT bytes
 * is still hidden, but only where it stands as a word of its own (not
 * inside a longer run of letters, digits, '-' or '_'): a local server's
 * placeholder key such as "x" must not eat every x of a report.
 */
#define SECRET_MARKER "[api key hidden]"
#define SECRET_SHORT 8

/*
 * Remember a secret (the same one twice is kept once). NULL or "" is no
 * secret. Secrets are added as the settings are read, before any other
 * thread could be redacting.
 */
int secret_add(const char *secret);

/* Whether s (len bytes) holds a secret in any of its forms. */
bool secret_in(const char *s, size_t len);

/*
 * Every secret in text replaced by SECRET_MARKER. It cannot fail: when
 * memory runs out, each byte of each occurrence becomes '*' in place.
 */
void secret_redact(struct buf *text);

/*
 * s itself when it holds no secret; otherwise its redacted copy, kept in
 * tmp (which the caller releases after using the result), or the marker
 * alone when memory runs out. For a boundary that takes a const string.
 */
const char *secret_scrub(struct buf *tmp, const char *s);

/*
 * s (len bytes), redacted, into out of size bytes (cut to fit, always
 * NUL-terminated); the length written. Needs no memory: for error_set.
 */
size_t secret_copy(char *out, size_t size, const char *s, size_t len);

/* Forget every secret (tests). */
void secret_clear(void);

#endif
