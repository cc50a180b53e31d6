/* What model.c (the requests, the notes) and controllers.c share. */
#ifndef MODEL_H
#define MODEL_H
#include <stddef.h>
#include <stdint.h>
#include "ee_float.h"

/* one controller (formats.md §4.4): kind 0 absent, 1 one value (base), 2 keyed */
typedef struct {
    int kind;
    uint32_t base[3];
    uint32_t n;                       /* keyed: the keys, in the chunk's bytes */
    const unsigned char *keys;
    size_t segs;                      /* keyed: the compiled (dur, delta[3]) segments */
    uint32_t *dur, *delta;
} Ctrl;

typedef struct { uint32_t dur; int axis_ok; double axis[3], angle; } Seg;   /* a keyed rotation's turn */

typedef struct {
    Ctrl pos, rot, scale, alpha;
    uint32_t rot9[9];                 /* an absent or one-value rotation's words, c-major */
    double base[3][3];                /* a keyed rotation: the first key's matrix and its turns */
    Seg *seg;
    uint32_t nseg;
} Track;

/* a 0x0605 direct light (docs/lights.md): position, rotation, colour, intensity, beam start and
 * end, radius 1 and 2, as float controllers; kind 0 channels are absent */
typedef struct { Ctrl ch[8]; } Light;
#define LIGHT_WORDS 15

const char *track_read(Track *tr, const unsigned char *b, uint32_t words, uint32_t frames);
uint32_t track_pose(const Track *tr, uint32_t T, uint32_t last, uint32_t out[16]);
void track_free(Track *tr);
const char *light_read(Light *lt, const unsigned char *b, uint32_t words, uint32_t frames);
int light_words(const Light *lt, uint32_t T, uint32_t last, uint32_t out[LIGHT_WORDS]);
void light_free(Light *lt);

#endif
