/* A model of the notes and controller queries in C (docs/truth.md §2-§3): nothing of eediff used.
 *
 *   cc -O2 -o model model.c controllers.c ee_float.c -lm
 *   make bulk N=100 CHECK=controllers MODEL='./model'
 *   .venv/bin/python -m harness check-truth build/truth.jsonl --check controllers --model './model'
 *
 * One request line in (JSON: "chunk", "anime" as base64, "float_model", "queries"), one answer
 * line out. It reads the Anime chunk (formats.md §4): the F_Note records and end Top for the
 * notes queries, played with _AnimateForward's time rule (animation-semantics.md §8.1) and handed
 * on as NoteProcess does (§10.2, §10.4); the 0x0102 object records for the controller and
 * multistep queries, and its 0x0605 direct light records for the light queries (controllers.c,
 * docs/lights.md). It computes the "hw" float model only: a controller or light query under
 * another, or a query of another kind, gets an error line. --wrong flips bit 0 of the first word
 * it answers in each chunk, a note's event or a controller's position x, and of the first
 * direct light word: a deliberately wrong model.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"

/* ---- a minimal JSON reader: enough for the request line ------------------------------------- */
enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };
typedef struct J {
    int type;
    long long num;          /* J_NUM, J_BOOL */
    const char *s;          /* J_STR: the raw text between the quotes (escapes kept) */
    size_t len;
    struct J *kids;         /* J_ARR, J_OBJ: items (an object's are key, value, key, value...) */
    size_t n;
} J;

static const char *P;       /* the parse position */
static const char *ERR;     /* the first parse error */

static void ws(void) { while (*P == ' ' || *P == '\t' || *P == '\r' || *P == '\n') P++; }

static int parse(J *out);

static int parse_list(J *out, char close, int object) {
    size_t cap = 8;
    out->kids = malloc(cap * sizeof(J));
    out->n = 0;
    P++;
    ws();
    if (*P == close) { P++; return 1; }
    for (;;) {
        for (int part = 0; part <= object; part++) {
            if (out->n == cap) out->kids = realloc(out->kids, (cap *= 2) * sizeof(J));
            ws();
            if (!parse(&out->kids[out->n++])) return 0;
            ws();
            if (object && part == 0) {
                if (*P++ != ':') { ERR = "expected ':'"; return 0; }
            }
        }
        if (*P == ',') { P++; continue; }
        if (*P == close) { P++; return 1; }
        ERR = "expected ',' or a closing bracket";
        return 0;
    }
}

static int parse(J *out) {
    memset(out, 0, sizeof *out);
    ws();
    if (*P == '{') { out->type = J_OBJ; return parse_list(out, '}', 1); }
    if (*P == '[') { out->type = J_ARR; return parse_list(out, ']', 0); }
    if (*P == '"') {
        out->type = J_STR;
        out->s = ++P;
        while (*P && *P != '"') P += (*P == '\\' && P[1]) ? 2 : 1;
        if (!*P) { ERR = "an unterminated string"; return 0; }
        out->len = (size_t)(P++ - out->s);
        return 1;
    }
    if (!strncmp(P, "true", 4)) { out->type = J_BOOL; out->num = 1; P += 4; return 1; }
    if (!strncmp(P, "false", 5)) { out->type = J_BOOL; P += 5; return 1; }
    if (!strncmp(P, "null", 4)) { out->type = J_NULL; P += 4; return 1; }
    char *end;
    out->type = J_NUM;
    out->num = strtoll(P, &end, 10);
    if (end == P) { ERR = "not a JSON value"; return 0; }
    P = end;
    return 1;
}

static void release(J *j) {
    if (j->type == J_ARR || j->type == J_OBJ) {
        for (size_t k = 0; k < j->n; k++) release(&j->kids[k]);
        free(j->kids);
    }
}

static J *get(J *obj, const char *key) {
    if (!obj || obj->type != J_OBJ) return NULL;
    for (size_t k = 0; k + 1 < obj->n; k += 2)
        if (obj->kids[k].len == strlen(key) && !memcmp(obj->kids[k].s, key, obj->kids[k].len))
            return &obj->kids[k + 1];
    return NULL;
}

static unsigned char *base64(const char *s, size_t len, size_t *out_len) {
    unsigned char *out = malloc(len / 4 * 3 + 3);
    size_t n = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t k = 0; k < len && s[k] != '='; k++) {
        const char *a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        const char *c = strchr(a, s[k]);
        if (!c || !s[k]) { free(out); return NULL; }
        acc = (acc << 6) | (unsigned)(c - a);
        if ((bits += 6) >= 8) { bits -= 8; out[n++] = (unsigned char)(acc >> bits); }
    }
    *out_len = n;
    return out;
}

/* ---- the chunk: frames, loops, its F_Note and object records in file order ------------------ */
typedef struct { uint32_t frame, object, event, param; } Note;
typedef struct {
    uint32_t frames;
    int loops;
    Note *notes;
    size_t n;
    Track *tracks;
    size_t ntracks;
    Light *lights;
    size_t nlights;
} Anime;

static uint32_t u32(const unsigned char *b) { return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24; }

static const char *read_anime(const unsigned char *b, size_t len, Anime *a) {
    memset(a, 0, sizeof *a);
    if (len < 20) return "the Anime chunk is shorter than its header";
    a->frames = u32(b + 12);
    uint64_t end = 20 + 4 * (uint64_t)u32(b + 16);
    if (end > len) return "the Anime chunk's record words run past its end";
    a->notes = malloc((size_t)(end / 8 + 1) * sizeof(Note));
    a->tracks = calloc((size_t)(end / 8 + 1), sizeof(Track));
    a->lights = calloc((size_t)(end / 8 + 1), sizeof(Light));
    uint32_t frame = 0;
    for (uint64_t p = 20; p + 8 <= end;) {
        uint32_t kind = u32(b + p) & 0xFFFF, words = u32(b + p + 4);
        if (p + 8 + 4 * (uint64_t)words > end) return "a record runs past the chunk's end";
        if (kind == 0xFF01 && words >= 1) {                  /* Top: a frame, or the end */
            uint32_t value = u32(b + p + 8);
            if (value >= 0xFFFFFF00u) a->loops = value == 0xFFFFFFFEu;
            else frame = value;
        } else if (kind == 0x0108 && words >= 3) {           /* F_Note: object, event, param */
            Note nt = {frame, u32(b + p + 8), u32(b + p + 12), u32(b + p + 16)};
            a->notes[a->n++] = nt;
        } else if (kind == 0x0102) {                         /* an object record: a track */
            const char *why = track_read(&a->tracks[a->ntracks++], b + p + 8, words, a->frames);
            if (why) return why;
        } else if (kind == 0x0605) {                         /* a direct light */
            const char *why = light_read(&a->lights[a->nlights++], b + p + 8, words, a->frames);
            if (why) return why;
        }
        p += 8 + 4 * (uint64_t)words;
    }
    return NULL;
}

/* ---- one _AnimateForward + NoteProcess step (animation-semantics.md §8.1, §10.4) ------------ */
static int wrong, flipped, flipped_light;

static void step(const Anime *a, uint32_t *time, uint32_t s, int restart, FILE *fw, FILE *fn) {
    uint32_t last = (a->frames - 1) * 256u, t = *time, nt = t + s;
    int ended = 0;
    if (nt > last) { nt = last; ended = 1; }
    uint32_t old = t >> 8, nf = nt >> 8;
    fputc('[', fn);
    int first = 1;
    for (size_t k = a->n; k-- > 0;) {                       /* the last record of a frame first */
        const Note *x = &a->notes[k];
        if (!(old < x->frame && x->frame <= nf)) continue;
        uint32_t ev = x->event;
        if (wrong && !flipped) { ev ^= 1; flipped = 1; }
        fprintf(fn, "%s[%u,%u,%u,%u]", first ? "" : ",", ev, x->param,
                x->frame == old + 1 ? old : x->frame, x->object);
        first = 0;
    }
    fputc(']', fn);
    if (nf != old) {
        ended = 0;
        if (nf >= a->frames - 1u) {
            if (a->loops) nt = 0;
            else ended = 1;
        }
    }
    fprintf(fw, "[%u,%d]", nt, ended);
    *time = ended && !a->loops && restart ? 0 : nt;
}

static int is(const J *j, const char *text) {
    return j && j->type == J_STR && j->len == strlen(text) && !memcmp(j->s, text, j->len);
}

static void notes_answer(const Anime *a, J *query) {
    J *plan = get(query, "plan"), *i = get(query, "i");
    char *fwbuf = NULL, *nbuf = NULL;
    size_t fwlen = 0, nlen = 0;
    FILE *fw = open_memstream(&fwbuf, &fwlen), *fn = open_memstream(&nbuf, &nlen);
    uint32_t time = 0;
    for (size_t k = 0; plan && plan->type == J_ARR && k < plan->n; k++) {
        J *st = &plan->kids[k];
        if (st->type != J_ARR || st->n != 2) continue;
        if (k) { fputc(',', fw); fputc(',', fn); }
        step(a, &time, (uint32_t)st->kids[0].num, (int)st->kids[1].num, fw, fn);
    }
    fclose(fw);
    fclose(fn);
    printf("{\"i\":%lld,\"kind\":\"notes\",\"forward\":[%s],\"notes\":[%s]}", i ? i->num : 0, fwbuf, nbuf);
    free(fwbuf);
    free(nbuf);
}

/* words [from, from + n) of each pose, as a list (n = 1: the word itself) per pose */
static void field(const char *name, const uint32_t *poses, size_t count, int from, int n, int one) {
    printf(",\"%s\":%s", name, one ? "" : "[");
    for (size_t k = 0; k < count; k++) {
        printf("%s%s", k ? "," : "", n > 1 ? "[" : "");
        for (int w = 0; w < n; w++) printf("%s%u", w ? "," : "", poses[16 * k + from + w]);
        printf("%s", n > 1 ? "]" : "");
    }
    printf("%s", one ? "" : "]");
}

/* a controller query: the pose at each time; a multistep query: the pose at its deltas' sum,
 * which is where SetAnmCtrlWork by each delta in turn leaves the work (animation-semantics.md §7) */
static void controller_answer(const Anime *a, J *query, int multi) {
    J *track = get(query, "track"), *times = get(query, multi ? "deltas" : "times"), *i = get(query, "i");
    const Track *tr = &a->tracks[track->num];
    uint32_t last = a->frames ? (a->frames - 1) * 256u : 0, sum = 0;
    size_t count = multi ? 1 : times->n;
    uint32_t *poses = malloc((count + 1) * 16 * sizeof *poses), *passed = malloc((count + 1) * sizeof *passed);
    for (size_t k = 0; k < times->n; k++) sum += (uint32_t)times->kids[k].num;
    for (size_t k = 0; k < count; k++) {
        passed[k] = track_pose(tr, multi ? sum : (uint32_t)times->kids[k].num, last, poses + 16 * k);
        if (wrong && !flipped) { poses[16 * k] ^= 1; flipped = 1; }
    }
    printf("{\"i\":%lld,\"kind\":\"%s\"", i->num, multi ? "multistep" : "controller");
    field("pos", poses, count, 0, 3, multi);
    field("scale", poses, count, 3, 3, multi);
    field("rot", poses, count, 6, 9, multi);
    field("alpha", poses, count, 15, 1, multi);
    if (!multi) field("localtp", poses, count, 15, 1, 0);    /* coord +0x88: alpha (§4 step 4) */
    if (tr->rot.kind == 2) {
        printf(",\"passed\":%s", multi ? "" : "[");
        for (size_t k = 0; k < count; k++) printf("%s%u", k ? "," : "", passed[k]);
        printf("%s", multi ? "" : "]");
    }
    printf("}");
    free(poses);
    free(passed);
}

/* a light query: the words of its `fields` at each time (docs/truth.md §3, docs/lights.md) */
static void light_answer(const Anime *a, J *query) {
    J *light = get(query, "light"), *times = get(query, "times"), *fields = get(query, "fields"), *i = get(query, "i");
    uint32_t last = a->frames ? (a->frames - 1) * 256u : 0, w[LIGHT_WORDS];
    printf("{\"i\":%lld,\"kind\":\"light\",\"words\":[", i->num);
    for (size_t k = 0; k < times->n; k++) {
        light_words(&a->lights[light->num], (uint32_t)times->kids[k].num, last, w);
        if (wrong && !flipped_light && fields->n) { w[fields->kids[0].num] ^= 1; flipped_light = 1; }
        printf("%s[", k ? "," : "");
        for (size_t f = 0; f < fields->n; f++) printf("%s%u", f ? "," : "", w[fields->kids[f].num]);
        printf("]");
    }
    printf("]}");
}

/* why this model cannot answer query q, asked before the chunk is read (a modify query of the
 * synthetic blends comes with no chunk), or NULL */
static const char *refused(J *q, int hw) {
    J *kind = get(q, "kind"), *i = get(q, "i");
    if (!i || i->type != J_NUM) return "a query without its index i";
    if (is(kind, "notes")) return NULL;                         /* no float arithmetic in a note */
    if (!is(kind, "controller") && !is(kind, "multistep") && !is(kind, "light"))
        return "this model answers notes, controller, multistep and light queries only (CHECK=notes or "
               "CHECK=controllers)";
    /* DECISION: the protocol has no field in which a model names the float models it computes:
     * one that computes "hw" only refuses a controller or light query under another with an error line,
     * the chunk's model error (a run under FLOAT=trunc is then never green) */
    if (!hw) return "this model computes the hw float model only (float_model hw)";
    return NULL;
}

/* why the chunk's direct lights cannot answer light query q, or NULL: each of its fields must be
 * a word that the light's present channels write */
static const char *no_light(const Anime *a, J *q) {
    J *light = get(q, "light"), *times = get(q, "times"), *fields = get(q, "fields");
    if (!light || light->type != J_NUM || light->num < 0 || (size_t)light->num >= a->nlights)
        return "a light query's light is not one of the chunk's direct light records";
    if (!times || times->type != J_ARR || !fields || fields->type != J_ARR)
        return "a light query without its times or fields";
    uint32_t w[LIGHT_WORDS];
    int present = light_words(&a->lights[light->num], 0, 0, w);
    for (size_t f = 0; f < fields->n; f++)
        if (fields->kids[f].type != J_NUM || fields->kids[f].num < 0 || fields->kids[f].num >= LIGHT_WORDS ||
            !(present >> fields->kids[f].num & 1))
            return "a light query's field is not a word of the light's present channels";
    return NULL;
}

/* why the chunk's records cannot answer controller or light query q, or NULL */
static const char *no_track(const Anime *a, J *q) {
    if (is(get(q, "kind"), "notes")) return NULL;
    if (is(get(q, "kind"), "light")) return no_light(a, q);
    J *track = get(q, "track"), *times = get(q, is(get(q, "kind"), "controller") ? "times" : "deltas");
    if (!track || track->type != J_NUM || track->num < 0 || (size_t)track->num >= a->ntracks)
        return "a controller query's track is not one of the chunk's object records";
    if (!times || times->type != J_ARR) return "a controller query without its times or deltas";
    return NULL;
}

static void answer_line(char *line) {
    J req;
    P = line;
    ERR = NULL;
    if (!parse(&req) || req.type != J_OBJ) { printf("{\"error\":\"not a JSON request line\"}\n"); return; }
    J *chunk = get(&req, "chunk"), *anime = get(&req, "anime"), *queries = get(&req, "queries");
    J *float_model = get(&req, "float_model");
    const char *why = NULL;
    Anime a = {0};
    unsigned char *bytes = NULL;
    size_t len = 0;
    if (!chunk || chunk->type != J_STR || !anime || anime->type != J_STR || !queries || queries->type != J_ARR)
        why = "the request needs chunk, anime and queries";
    int hw = !float_model || is(float_model, "hw");
    for (size_t q = 0; !why && q < queries->n; q++) why = refused(&queries->kids[q], hw);
    if (!why && !(bytes = base64(anime->s, anime->len, &len)))
        why = "anime is not base64";
    if (!why)
        why = read_anime(bytes, len, &a);
    for (size_t q = 0; !why && q < queries->n; q++) why = no_track(&a, &queries->kids[q]);
    if (why) {
        printf("{\"chunk\":\"%.*s\",\"error\":\"%s\"}\n", chunk && chunk->type == J_STR ? (int)chunk->len : 0,
               chunk && chunk->type == J_STR ? chunk->s : "", why);
    } else {
        flipped = flipped_light = 0;
        printf("{\"chunk\":\"%.*s\",\"answers\":[", (int)chunk->len, chunk->s);
        for (size_t q = 0; q < queries->n; q++) {
            J *query = &queries->kids[q];
            if (q) printf(",");
            if (is(get(query, "kind"), "notes")) notes_answer(&a, query);
            else if (is(get(query, "kind"), "light")) light_answer(&a, query);
            else controller_answer(&a, query, is(get(query, "kind"), "multistep"));
        }
        printf("]}\n");
    }
    fflush(stdout);
    for (size_t k = 0; k < a.ntracks; k++) track_free(&a.tracks[k]);
    free(a.tracks);
    for (size_t k = 0; k < a.nlights; k++) light_free(&a.lights[k]);
    free(a.lights);
    free(a.notes);
    free(bytes);
    release(&req);
}

int main(int argc, char **argv) {
    for (int k = 1; k < argc; k++) wrong |= !strcmp(argv[k], "--wrong");
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) > 0) answer_line(line);
    free(line);
    return 0;
}
