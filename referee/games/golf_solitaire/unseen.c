/*
 * Golf solitaire with the stock unseen: the exact best chance any player has of
 * clearing the tableau, and the run that keeps it. unseen.py beside this file compiles
 * it and drives it through the line protocol below (scripts/solitaire_eval --exact-from
 * plays it against the bots); it is a measuring tool, not a bot, and the referee never
 * runs it. tests/games/test_golf_solitaire_unseen.py checks it against a plain
 * move-by-move expectimax, and against a build of itself without the cuts (-DNO_CUTS).
 *
 * A player knows which cards are in the stock, not their order. Between two turns of the
 * stock the only choice is where the run of tableau plays stops; the next card is then
 * drawn at random from the unseen ones. chance(h, S), for column heights h about to turn
 * the stock with the multiset S of unseen ranks, is the mean over the next card's rank r
 * (weighted by its count in S) of the best chance(e, S - r) over every place e the run
 * from (h, r) may stop; 1 at an empty tableau, 0 when the stock is out.
 *
 * What makes whole holes affordable (PySolFC deals from the deal: from under a second to
 * a few minutes each), besides C: two cuts that prove a state lost without searching it.
 * Both are necessary conditions of any clear, so the value is still exact.
 *  - Runs: each turn of the stock starts one run, so a tableau that needs more runs than
 *    there are stock cards is lost, even counting runs as if each could start from any
 *    card (fewest_runs, memoised per heights vector).
 *  - Predecessors: every tableau card is played onto a card of its own, of a rank it may
 *    go on: a tableau card played before it or a stock card. When cards only go on the
 *    ranks next to theirs (no wrapping, no jokers), whether each tableau card can have
 *    such a card of its own is a matching along the ranks, settled greedily
 *    (has_predecessors). E.g. four queens left and only three jacks that could precede
 *    them, none in the stock: lost, however many turns remain.
 *
 * Protocol, one command a line on stdin, answers on stdout:
 *   adj BITS        225 characters 0/1: adj[top][rank] for top, rank in 0..14 (0 joker,
 *                   1..13 ace..king, 14 the empty foundation), row by row
 *   blocked 0|1     the stock may be turned only when no tableau card fits
 *   deal C0 .. C6   the dealt columns, ranks bottom to top joined by '.', '-' when empty;
 *                   forgets every value of the previous deal
 *   best H TOP U..  heights (7 digits), the foundation's top rank (14 empty), the unseen
 *                   ranks: prints "CHANCE STOP STATES SECONDS": the best chance, the heights
 *                   (7 digits) the run should stop at (on equal chances the one leaving
 *                   fewest cards), the states valued so far in this deal, CPU seconds
 *   chance H U..    heights and unseen ranks, about to turn the stock: "CHANCE STATES SECONDS"
 * The unseen cards of a deal's queries must be among those of its first query (a hole's
 * later positions are).
 * Errors print "error: ..." and exit 2. A search whose client has died (its parent
 * changed) exits 3 within a million states: it would otherwise run on alone for minutes,
 * holding gigabytes, with no one to answer.
 */
#define _POSIX_C_SOURCE 200809L /* getppid under -std=c11 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { COLUMNS = 7, MAX_HEIGHT = 7, RANKS = 14, EMPTY = 14, MAX_CARDS = 64 };

static int adj[15][15];
static int blocked_only;
static int cols[COLUMNS][MAX_HEIGHT];
static int col_height[COLUMNS];
static int line_ranks; /* cards go only on the ranks next to theirs, and no jokers */

static void fail(const char *what) {
    printf("error: %s\n", what);
    fflush(stdout);
    exit(2);
}

static inline int height(uint32_t h, int c) { return (int)(h >> (3 * c)) & 7; }
/* Cards in three columns' 9 bits of heights, for a heights vector in three look-ups. */
static unsigned char cards9[512];
static inline int cards_left(uint32_t h) {
    return cards9[h & 511] + cards9[(h >> 9) & 511] + cards9[h >> 18];
}
static inline uint64_t mix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

/* Tableau rank counts of a heights vector, 4 bits per rank: the counts of columns 0-2,
 * 3-5 and 6 looked up by their bits of the heights (filled in for each deal). */
static uint64_t prefix_counts[COLUMNS][MAX_HEIGHT + 1];
static uint64_t counts_low[512], counts_mid[512], counts_high[8];
static inline uint64_t tableau_counts(uint32_t h) {
    return counts_low[h & 511] + counts_mid[(h >> 9) & 511] + counts_high[h >> 18];
}

static void fill_counts(void) {
    for (uint32_t x = 0; x < 512; x++) {
        counts_low[x] = counts_mid[x] = 0;
        for (int c = 0; c < 3; c++) {
            int ht = (int)(x >> (3 * c)) & 7;
            counts_low[x] += ht <= col_height[c] ? prefix_counts[c][ht] : 0;
            counts_mid[x] += ht <= col_height[c + 3] ? prefix_counts[c + 3][ht] : 0;
        }
    }
    for (int ht = 0; ht < 8; ht++) counts_high[ht] = ht <= col_height[6] ? prefix_counts[6][ht] : 0;
}
static inline int nibble(uint64_t packed, int r) { return (int)(packed >> (4 * r)) & 15; }

/* ---- the places a run may stop ---------------------------------------------------- */

/* Small sets stamped with a generation, so a new run's search clears them for free. */
enum { SET_SIZE = 1 << 15, MAX_STOPS = SET_SIZE / 2 };
static uint32_t visit_key[SET_SIZE], visit_gen[SET_SIZE];
static uint32_t stop_key[SET_SIZE], stop_gen[SET_SIZE];
static uint32_t generation;

static int set_add(uint32_t *keys, uint32_t *gens, uint32_t k) {
    uint32_t i = (uint32_t)mix(k) & (SET_SIZE - 1);
    while (gens[i] == generation) {
        if (keys[i] == k) return 0;
        i = (i + 1) & (SET_SIZE - 1);
    }
    gens[i] = generation;
    keys[i] = k;
    return 1;
}

/* Every heights vector the run from (h0, top0) may stop at (blocked_only: only where no
 * card fits, or at an empty tableau), into out; returns how many. may_turn_at_start: h0
 * itself counts as a stop (not when the foundation is empty). */
static int run_stops(uint32_t h0, int top0, int may_turn_at_start, uint32_t *out) {
    static uint32_t stack_h[MAX_STOPS];
    static unsigned char stack_t[MAX_STOPS];
    generation++;
    int sp = 0, n = 0, visits = 1;
    stack_h[sp] = h0;
    stack_t[sp++] = (unsigned char)top0;
    set_add(visit_key, visit_gen, h0 << 4 | (uint32_t)top0);
    while (sp) {
        sp--;
        uint32_t h = stack_h[sp];
        int t = stack_t[sp], plays = 0;
        for (int c = 0; c < COLUMNS; c++) {
            int ht = height(h, c);
            if (!ht || !adj[t][cols[c][ht - 1]]) continue;
            plays = 1;
            uint32_t after = h - (1u << (3 * c));
            int r = cols[c][ht - 1];
            if (set_add(visit_key, visit_gen, after << 4 | (uint32_t)r)) {
                if (++visits > MAX_STOPS) fail("a run reaches too many positions");
                stack_h[sp] = after;
                stack_t[sp++] = (unsigned char)r;
            }
        }
        int may_stop = h == 0 || !(blocked_only && plays);
        if (h == h0 && t == top0 && !may_turn_at_start) may_stop = h == 0;
        if (may_stop && set_add(stop_key, stop_gen, h)) out[n++] = h;
    }
    return n;
}

/* ---- the cuts ------------------------------------------------------------------------ */

static unsigned char *fewest_memo; /* 1 + fewest runs, 0 unknown; indexed by heights */
static uint32_t *fewest_touched;
static uint32_t fewest_touched_n;

/* The fewest runs that clear h if a run could start from any card (top 0, the joker's
 * row, takes every card). A lower bound on the turns of the stock a clear needs. */
static int fewest_runs(uint32_t h, int depth) {
    static uint32_t buffers[MAX_CARDS][MAX_STOPS];
    if (h == 0) return 0;
    if (fewest_memo[h]) return fewest_memo[h] - 1;
    uint32_t *mine = buffers[depth];
    int n = run_stops(h, 0, 0, mine), best = 99;
    for (int i = 0; i < n; i++) {
        if (mine[i] == h) continue;
        int x = 1 + fewest_runs(mine[i], depth + 1);
        if (x < best) best = x;
    }
    fewest_memo[h] = (unsigned char)(best + 1);
    fewest_touched[fewest_touched_n++] = h;
    return best;
}

/* Whether every tableau card (counts d) can have a card of its own to be played onto:
 * a tableau card of a rank it may go on, or a stock card (counts s). Ranks in a line, so
 * greedily from the ace up: a card takes the one below first (no later card can use it),
 * then the one above. */
static int from_above[RANKS + 1]; /* adj[x + 1][x]: may a card go on the rank above it */
static int has_predecessors(uint64_t d, uint64_t s) {
    uint64_t supply = d + s; /* at most 8 of a rank: no carry between nibbles */
    int below = 0, here = nibble(supply, 1); /* what ranks x - 1 and x have left */
    for (int x = 1; x <= 13; x++) {
        int need = nibble(d, x), above = nibble(supply, x + 1);
        int u = below < need ? below : need; /* from below first: no later card can use it */
        need -= u;
        if (need && from_above[x]) {
            u = above < need ? above : need;
            above -= u;
            need -= u;
        }
        if (need) return 0;
        below = here;
        here = above;
    }
    return 1;
}

/* ---- the values ---------------------------------------------------------------------- */

/* Unseen multisets: s packs the counts 4 bits per rank; index is the same multiset in
 * the mixed radix of the deal's first query's counts (every later one is a subset).
 * The values: one small open-addressing table of heights per unseen multiset, so the
 * stops after one card, which share the multiset, are looked up in one place. A slot
 * packs heights + 1 (0: free) above the chance in fixed point, 1 being 2^41 (so halves,
 * quarters and the like are exact, and any chance within 2.3e-13: a whole hole's within
 * 1e-11 of a plain double expectimax's). 8 bytes a state, since the largest holes take
 * gigabytes even so (deal 19: over 4 GB). */
enum { CHANCE_BITS = 42 };
#define CHANCE_MASK ((1ULL << CHANCE_BITS) - 1)
#define CHANCE_ONE (1ULL << (CHANCE_BITS - 1))
struct values {
    uint32_t mask, used;
    uint64_t *slots;
};
static uint64_t radix[RANKS], radix_end;
static int radix_set, dealt;
static struct values *by_unseen; /* indexed by the unseen multiset's index */
static uint64_t states;
static pid_t client; /* the process that started this one */

static inline uint32_t slot_of(uint32_t h) { return (uint32_t)(h * 0x9E3779B1u) >> 8; }

static int table_get(uint64_t index, uint32_t h, double *v) {
    const struct values *t = &by_unseen[index];
    if (!t->slots) return 0;
    uint64_t want = (uint64_t)(h + 1) << CHANCE_BITS;
    for (uint32_t i = slot_of(h) & t->mask; t->slots[i]; i = (i + 1) & t->mask)
        if ((t->slots[i] & ~CHANCE_MASK) == want) {
            *v = (double)(t->slots[i] & CHANCE_MASK) / (double)CHANCE_ONE;
            return 1;
        }
    return 0;
}

static void values_alloc(struct values *t, uint32_t size) {
    t->mask = size - 1;
    t->used = 0;
    t->slots = calloc(size, sizeof *t->slots);
    if (!t->slots) fail("out of memory for the values");
}

static void values_insert(struct values *t, uint64_t slot) {
    uint32_t i = slot_of((uint32_t)(slot >> CHANCE_BITS) - 1) & t->mask;
    while (t->slots[i]) i = (i + 1) & t->mask;
    t->slots[i] = slot;
    t->used++;
}

static double table_put(uint64_t index, uint32_t h, double v) {
    struct values *t = &by_unseen[index];
    if (!t->slots) values_alloc(t, 16);
    if ((t->used + 1) * 4 > (t->mask + 1) * 3) { /* grow at 3/4 full */
        struct values old = *t;
        values_alloc(t, 2 * (old.mask + 1));
        for (uint32_t i = 0; i <= old.mask; i++)
            if (old.slots[i]) values_insert(t, old.slots[i]);
        free(old.slots);
    }
    uint64_t q = (uint64_t)(v * (double)CHANCE_ONE + 0.5);
    values_insert(t, (uint64_t)(h + 1) << CHANCE_BITS | q);
    if (++states % (1u << 20) == 0 && getppid() != client) exit(3); /* orphaned */
    return (double)q / (double)CHANCE_ONE;
}

static void values_free(void) {
    if (by_unseen)
        for (uint64_t i = 0; i < radix_end; i++) free(by_unseen[i].slots);
    free(by_unseen);
    by_unseen = NULL;
    states = 0;
}

static double chance(uint32_t h, uint64_t s, int left, uint64_t index);

/* The value of stopping at e, when that is settled without the table: a clear, no stock
 * left, or one of the cuts. Returns 1 and sets *v when it is. Built with -DNO_CUTS the
 * search goes without the cuts: the tests check they never change a value. */
static inline int settled(uint32_t e, uint64_t s, int left, double *v) {
    if (e == 0) {
        *v = 1.0;
        return 1;
    }
#ifdef NO_CUTS
    (void)s;
    (void)fewest_runs;
    (void)has_predecessors;
    if (left == 0) {
#else
    if (left == 0 || fewest_runs(e, 0) > left ||
        (line_ranks && !has_predecessors(tableau_counts(e), s))) {
#endif
        *v = 0.0;
        return 1;
    }
    return 0;
}

/* Stops in order of cards left, fewest first (on equal counts in the order found). */
static void by_cards_left(const uint32_t *stops, int n, uint32_t *order) {
    int at[MAX_CARDS + 1] = {0};
    for (int i = 0; i < n; i++) at[cards_left(stops[i]) + 1]++;
    for (int k = 0; k < MAX_CARDS; k++) at[k + 1] += at[k];
    for (int i = 0; i < n; i++) order[at[cards_left(stops[i])]++] = stops[i];
}

/* The stops of the run from each (heights, card turned), fewest cards first, kept for the
 * deal: they do not depend on the unseen cards, and each is asked for again with every
 * other unseen set that reaches the same heights. Open addressing over (h << 4 | r) + 1,
 * each entry pointing into one pool of stops. */
struct run_entry {
    uint32_t key, count;
    uint64_t offset;
};
static struct run_entry *runs;
static uint64_t runs_mask, runs_used;
static uint32_t *run_pool;
static uint64_t pool_used, pool_size;

static void runs_reset(void) {
    free(runs);
    runs_mask = (1u << 16) - 1;
    runs = calloc(runs_mask + 1, sizeof *runs);
    runs_used = pool_used = 0;
    if (!runs) fail("out of memory for the runs");
}

static struct run_entry *runs_slot(uint32_t key) {
    uint64_t i = (uint32_t)(key * 0x9E3779B1u) & runs_mask;
    while (runs[i].key && runs[i].key != key) i = (i + 1) & runs_mask;
    return &runs[i];
}

/* The stops of the run from (h, r), fewest cards first: *n of them from run_pool[result]
 * (an offset: the pool may move as it grows). */
static uint64_t ordered_stops(uint32_t h, int r, int *n) {
    static uint32_t found[MAX_STOPS];
    uint32_t key = (h << 4 | (uint32_t)r) + 1;
    struct run_entry *e = runs_slot(key);
    if (!e->key) {
        int count = run_stops(h, r, 1, found);
        if (pool_used + (uint64_t)count > pool_size) {
            pool_size = 2 * pool_size + MAX_STOPS;
            run_pool = realloc(run_pool, pool_size * sizeof *run_pool);
            if (!run_pool) fail("out of memory for the runs");
        }
        by_cards_left(found, count, run_pool + pool_used);
        if ((runs_used + 1) * 4 > (runs_mask + 1) * 3) { /* grow at 3/4 full */
            struct run_entry *old = runs;
            uint64_t old_size = runs_mask + 1;
            runs_mask = 2 * old_size - 1;
            runs = calloc(2 * old_size, sizeof *runs);
            if (!runs) fail("out of memory for the runs");
            for (uint64_t i = 0; i < old_size; i++)
                if (old[i].key) *runs_slot(old[i].key) = old[i];
            free(old);
        }
        e = runs_slot(key);
        *e = (struct run_entry){key, (uint32_t)count, pool_used};
        pool_used += (uint64_t)count;
        runs_used++;
    }
    *n = (int)e->count;
    return e->offset;
}

/* The best chance over the n stops at (*list)[offset...], fewest cards first (a clear
 * ends the search). Read through *list: the runs' pool may move while this searches. */
static double best_of(uint32_t *const *list, uint64_t offset, int n, uint64_t s, int left,
                      uint64_t index, uint32_t *best_stop) {
    const struct values *t = &by_unseen[index];
    if (t->slots) /* the table slots, fetched ahead */
        for (int i = 0; i < n; i++)
            __builtin_prefetch(&t->slots[slot_of((*list)[offset + i]) & t->mask]);
    double best = -1.0;
    for (int i = 0; i < n && best < 1.0; i++) {
        uint32_t e = (*list)[offset + i];
        double v;
        if (!settled(e, s, left, &v)) v = chance(e, s, left, index);
        if (v > best) {
            best = v;
            if (best_stop) *best_stop = e;
        }
    }
    return best < 0 ? 0.0 : best;
}

static double chance(uint32_t h, uint64_t s, int left, uint64_t index) {
    double v;
    if (table_get(index, h, &v)) return v;
    double total = 0.0;
    for (int r = 0; r < RANKS; r++) {
        int count = nibble(s, r), n;
        if (!count) continue;
        uint64_t at = ordered_stops(h, r, &n);
        uint64_t rest = s - (1ULL << (4 * r));
        total += count * best_of(&run_pool, at, n, rest, left - 1, index - radix[r], NULL);
    }
    return table_put(index, h, total / left);
}

/* ---- the protocol --------------------------------------------------------------------- */

static void reset_deal(void) {
    values_free();
    runs_reset();
    for (uint32_t i = 0; i < fewest_touched_n; i++) fewest_memo[fewest_touched[i]] = 0;
    fewest_touched_n = 0;
    radix_set = 0;
}

static int parse_rank(const char *text, char **end) {
    long r = strtol(text, end, 10);
    if (*end == text || r < 0 || r > 13) fail("a rank is 0 to 13");
    return (int)r;
}

static void command_deal(char *args) {
    int jokers = 0;
    for (int c = 0; c < COLUMNS; c++) {
        char *tok = strtok(c ? NULL : args, " \t\n");
        if (!tok) fail("deal needs 7 columns");
        int n = 0;
        if (strcmp(tok, "-") != 0) {
            char *p = tok;
            while (*p) {
                if (n == MAX_HEIGHT) fail("a column holds at most 7 cards");
                cols[c][n] = parse_rank(p, &p);
                jokers += cols[c][n] == 0;
                n++;
                if (*p == '.') p++;
                else if (*p) fail("columns are ranks joined by '.'");
            }
        }
        col_height[c] = n;
        prefix_counts[c][0] = 0;
        for (int i = 0; i < n; i++) prefix_counts[c][i + 1] = prefix_counts[c][i] + (1ULL << (4 * cols[c][i]));
    }
    fill_counts();
    line_ranks = jokers == 0;
    for (int x = 1; x <= 13; x++) from_above[x] = x < 13 && adj[x + 1][x];
    for (int t = 1; t <= 13; t++) /* cards go on the next ranks only, and always on the one below */
        for (int r = 1; r <= 13; r++)
            if ((adj[t][r] && abs(t - r) != 1) || (r == t + 1 && !adj[t][r] && t < 13)) line_ranks = 0;
    reset_deal();
    dealt = 1;
}

/* A query's position: heights (7 digits), the top rank when with_top, the unseen ranks. */
struct query {
    uint32_t h;
    int top, left;
    uint64_t s, index;
};

static struct query parse_query(char *args, int with_top) {
    struct query q = {0, EMPTY, 0, 0, 0};
    if (!dealt) fail("a query needs a deal first (adj and blocked come before it)");
    char *tok = strtok(args, " \t\n");
    if (!tok || strlen(tok) != COLUMNS) fail("a query starts with 7 height digits");
    for (int c = 0; c < COLUMNS; c++) {
        int x = tok[c] - '0';
        if (x < 0 || x > col_height[c]) fail("a height is more than its dealt column");
        q.h |= (uint32_t)x << (3 * c);
    }
    if (with_top) {
        tok = strtok(NULL, " \t\n");
        if (!tok) fail("best needs the foundation's top rank");
        q.top = atoi(tok);
        if (q.top < 0 || q.top > 14) fail("the top rank is 0 to 14");
    }
    int counts[RANKS] = {0}, left = 0;
    while ((tok = strtok(NULL, " \t\n"))) {
        char *end;
        int r = parse_rank(tok, &end);
        if (++counts[r] > 15 || ++left > 40) fail("too many unseen cards");
    }
    if (!radix_set) { /* the deal's first query sets the radix of its unseen multisets */
        if (counts[0]) line_ranks = 0; /* a joker to come takes any card */
        uint64_t b = 1;
        for (int r = 0; r < RANKS; r++) {
            radix[r] = b;
            b *= (uint64_t)counts[r] + 1;
        }
        if (b > (1ULL << 19)) fail("too many kinds of unseen cards");
        radix_end = b;
        radix_set = 1;
        by_unseen = calloc(radix_end, sizeof *by_unseen);
        if (!by_unseen) fail("out of memory for the values");
    }
    for (int r = 0; r < RANKS; r++) {
        uint64_t limit = (r == RANKS - 1 ? radix_end : radix[r + 1]) / radix[r] - 1;
        if ((uint64_t)counts[r] > limit) fail("the unseen cards must be among the deal's first query's");
        q.s += (uint64_t)counts[r] << (4 * r);
        q.index += counts[r] * radix[r];
    }
    q.left = left;
    return q;
}

static void command_best(char *args) {
    struct query q = parse_query(args, 1);
    uint32_t h = q.h;
    int top = q.top, left = q.left;
    clock_t started = clock();
    static uint32_t stops[MAX_STOPS];
    int n;
    if (left == 0) { /* no stock: what counts is whether the run can reach an empty tableau */
        int blocked_was = blocked_only;
        blocked_only = 0;
        n = run_stops(h, top, 1, stops);
        blocked_only = blocked_was;
    } else {
        n = run_stops(h, top, top != EMPTY, stops);
    }
    static uint32_t ordered[MAX_STOPS];
    uint32_t *root = ordered, stop = h;
    by_cards_left(stops, n, ordered);
    double v = best_of(&root, 0, n, q.s, left, q.index, &stop);
    printf("%.17g ", v);
    for (int c = 0; c < COLUMNS; c++) putchar('0' + height(stop, c));
    printf(" %llu %.3f\n", (unsigned long long)states, (double)(clock() - started) / CLOCKS_PER_SEC);
    fflush(stdout);
}

static void command_chance(char *args) {
    struct query q = parse_query(args, 0);
    clock_t started = clock();
    double v;
    if (!settled(q.h, q.s, q.left, &v)) v = chance(q.h, q.s, q.left, q.index);
    printf("%.17g %llu %.3f\n", v, (unsigned long long)states,
           (double)(clock() - started) / CLOCKS_PER_SEC);
    fflush(stdout);
}

int main(void) {
    client = getppid();
    fewest_memo = calloc(1u << 21, 1);
    fewest_touched = malloc((1u << 21) * sizeof *fewest_touched);
    if (!fewest_memo || !fewest_touched) fail("out of memory");
    for (uint32_t x = 0; x < 512; x++) cards9[x] = (unsigned char)((x & 7) + ((x >> 3) & 7) + (x >> 6));
    for (int t = 0; t < 15; t++) /* the default rules until told otherwise */
        for (int r = 0; r < 15; r++)
            adj[t][r] = r != EMPTY && (t == 0 || t == EMPTY || r == 0 || (t != 13 && abs(t - r) == 1));
    static char line[1 << 12];
    while (fgets(line, sizeof line, stdin)) {
        char *rest = line + strcspn(line, " \t\n");
        if (*rest) *rest++ = 0;
        if (!strcmp(line, "adj")) {
            char *bits = strtok(rest, " \t\n");
            if (!bits || strlen(bits) != 225) fail("adj needs 225 bits");
            for (int i = 0; i < 225; i++) adj[i / 15][i % 15] = bits[i] == '1';
            dealt = 0;
        } else if (!strcmp(line, "blocked")) {
            blocked_only = atoi(rest) != 0;
            dealt = 0;
        } else if (!strcmp(line, "deal")) {
            command_deal(rest);
        } else if (!strcmp(line, "best")) {
            command_best(rest);
        } else if (!strcmp(line, "chance")) {
            command_chance(rest);
        } else if (*line) {
            fail("unknown command");
        }
    }
    return 0;
}
