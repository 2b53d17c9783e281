#ifndef REVLINE_UTF8_H
#define REVLINE_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "buf.h"

/*
 * Decode the UTF-8 sequence at s: its length (1 to 4) with the code point
 * in *cp, or 0 when the bytes there are not valid UTF-8 (overlong forms,
 * surrogates and truncated sequences included).
 */
size_t utf8_decode(uint32_t *cp, const char *s, size_t len);
bool utf8_valid(const char *s, size_t len);
/*
 * A string's JSON text, without its quotes, byte for byte as jansson's
 * json_dumps writes it (no flags): '"' and '\\' escaped, control
 * characters as \b \f \n \r \t or \u00XX, everything else as it is.
 * RL_EPARSE, out as it was, when s is not UTF-8 (jansson refuses it too).
 */
int utf8_json_text(struct buf *out, const char *s, size_t len);
/* Append s to out with every invalid byte replaced by U+FFFD. */
int utf8_sanitize(struct buf *out, const char *s, size_t len);
/*
 * Append s to out as text that cannot drive a terminal: C0 control
 * characters but newline and tab as ^X (ESC as ^[, CR as ^M), DEL as ^?,
 * C1 controls and the bidirectional overrides and isolates (U+202A-202E,
 * U+2066-2069) as <U+XXXX>, invalid UTF-8 as U+FFFD. The one function
 * every text output of revline passes outside strings through.
 */
int utf8_visible(struct buf *out, const char *s, size_t len);
/*
 * The characters that hide text or reorder it: the bidirectional controls
 * (U+202A-202E, U+2066-2069) and the zero-width ones (U+200B-200D,
 * U+2060, U+FEFF).
 */
bool utf8_hides(uint32_t cp);
/*
 * Append s to out with the characters utf8_hides written <U+XXXX>, as
 * utf8_visible writes the bidirectional ones; everything else (controls,
 * invalid bytes) as it is. How revline shows text meant to fool a reader
 * (the hidden-text rule's evidence) and compares it (the evidence check).
 */
int utf8_reveal(struct buf *out, const char *s, size_t len);
/* The other way: each <U+XXXX> (four to six hex digits naming a character) written as the character. */
int utf8_unreveal(struct buf *out, const char *s, size_t len);
/*
 * A JSON string of bytes that may not be UTF-8, which JSON needs: invalid
 * bytes become U+FFFD. utf8_json gives null for NULL.
 */
json_t *utf8_json(const char *s);
json_t *utf8_jsonn(const char *s, size_t len);
/* Append the base64 form of the bytes to out. */
int base64_encode(struct buf *out, const unsigned char *s, size_t len);

/*
 * Edit distance between a (alen bytes, as typed) and b, ignoring a's case
 * and '-' against '_', to guess a typo ("did you mean"); SIZE_MAX for words
 * over 23 bytes.
 */
size_t text_distance(const char *a, size_t alen, const char *b);

/*
 * The one "did you mean": each candidate offered to text_guess_try, the
 * closest is the guess when it is near enough to be a typo of what was
 * typed (one edit for a word of up to 4 bytes, two for a longer one).
 * index is the caller's, kept with the best candidate.
 */
struct text_guess {
	const char *typed;
	size_t len;
	size_t distance;        /* the best candidate's */
	const char *best;
	size_t index;           /* the best candidate's, as given */
};
void text_guess_init(struct text_guess *g, const char *typed, size_t len);
void text_guess_try(struct text_guess *g, const char *candidate, size_t index);
/* The guess, or NULL when no candidate is near enough. */
const char *text_guess_result(const struct text_guess *g);

#endif
