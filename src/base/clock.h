#ifndef REVLINE_CLOCK_H
#define REVLINE_CLOCK_H

#include <stdint.h>

/* The one clock: how long things take, and when they happened. */

/* Milliseconds on the monotonic clock: for durations, timeouts and deadlines. */
int64_t clock_ms(void);
/* Microseconds on the monotonic clock (the UI's loop measures its slices in them). */
int64_t clock_us(void);
/* Milliseconds since the epoch: for what is stored or shown as a time of day. */
int64_t clock_wall_ms(void);

#endif
