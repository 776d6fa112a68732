/* test_engine_table.c - the engine's slab pool (items by 32-bit index) and
 * its hash table (8-byte slots of hash tag and index), on their own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine_table.h"

struct item {
    uint64_t key;
    uint32_t self;
    uint32_t pad;
};

static bool item_eq(const void *it, const void *key)
{
    return ((const struct item *)it)->key == *(const uint64_t *)key;
}

/* Every index maps back to its item, across the growing blocks (16, 32, ...,
 * 512) and the fixed ones (1,024), and a released index comes back. */
static void test_pool_indices(void **state)
{
    (void)state;
    enum { N = 5000 };
    struct ep_pool p;
    ep_init(&p, sizeof(struct item));
    static struct item *items[N];
    static uint8_t seen[N];
    memset(seen, 0, sizeof seen);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t idx;
        items[i] = ep_alloc(&p, &idx);
        assert_non_null(items[i]);
        assert_true(idx < N);
        assert_int_equal(seen[idx], 0);
        seen[idx] = 1;
        items[i]->self = idx;
        items[i]->key = i;
        assert_ptr_equal(ep_item(&p, idx), items[i]);
    }
    for (uint32_t i = 0; i < N; i++)
        assert_int_equal(((struct item *)ep_item(&p, items[i]->self))->key, i);
    assert_int_equal(p.live, N);
    uint32_t gone = items[1234]->self, again;
    ep_release(&p, items[1234], gone);
    struct item *back = ep_alloc(&p, &again);
    assert_int_equal(again, gone);
    assert_ptr_equal(back, items[1234]);
    assert_int_equal(back->key, 0); /* handed out zeroed */
    ep_destroy(&p);
}

/* 100,000 keys in (growth from 64 slots), half removed (backward shift),
 * every lookup right after; keys whose hashes share their low 32 bits (the
 * slot's tag and home) are told apart by the comparison. */
static void test_table(void **state)
{
    (void)state;
    enum { N = 100000 };
    struct ep_pool p;
    struct et_table t;
    ep_init(&p, sizeof(struct item));
    assert_true(et_init(&t, 64, &p));
    for (uint64_t k = 0; k < N; k++) {
        uint32_t idx;
        struct item *it = ep_alloc(&p, &idx);
        assert_non_null(it);
        it->key = k;
        it->self = idx;
        /* keys 2n and 2n+1 get hashes equal in their low 32 bits */
        uint64_t h = et_hash(&(uint64_t){ k / 2 }, 8) ^ ((k & 1) << 40);
        assert_null(et_find(&t, h, item_eq, &k));
        assert_true(et_insert(&t, h, idx));
    }
    assert_int_equal(t.count, N);
    assert_true(t.count * 4 <= (t.mask + 1) * 3); /* at most three quarters full */
    for (uint64_t k = 0; k < N; k += 2) {
        uint64_t h = et_hash(&(uint64_t){ k / 2 }, 8);
        struct item *it = et_find(&t, h, item_eq, &k);
        assert_non_null(it);
        assert_true(et_remove(&t, h, it->self));
        ep_release(&p, it, it->self);
    }
    assert_int_equal(t.count, N / 2);
    for (uint64_t k = 0; k < N; k++) {
        uint64_t h = et_hash(&(uint64_t){ k / 2 }, 8) ^ ((k & 1) << 40);
        struct item *it = et_find(&t, h, item_eq, &k);
        if (k & 1) {
            assert_non_null(it);
            assert_int_equal(it->key, k);
        } else {
            assert_null(it);
        }
    }
    /* removing what is not there says so */
    assert_false(et_remove(&t, et_hash(&(uint64_t){ 0 }, 8), 0));
    et_destroy(&t);
    ep_destroy(&p);
}

/* One item under two keys, as a CM set-up waits under both its QPs:
 * removing it under one key leaves the other, even when both keys start
 * their probe runs at the same slot (tags equal in their low bits). */
static void test_two_keys(void **state)
{
    (void)state;
    struct ep_pool p;
    struct et_table t;
    ep_init(&p, sizeof(struct item));
    assert_true(et_init(&t, 16, &p));
    uint32_t idx;
    struct item *it = ep_alloc(&p, &idx);
    it->key = 7;
    uint64_t a = 0x100000003ull, b = 0x200000013ull; /* home slot 3 of 16 both */
    assert_true(et_insert(&t, b, idx));
    assert_true(et_insert(&t, a, idx));
    assert_true(et_remove(&t, a, idx));
    assert_ptr_equal(et_find(&t, b, item_eq, &(uint64_t){ 7 }), it);
    assert_null(et_find(&t, a, item_eq, &(uint64_t){ 7 }));
    assert_false(et_remove(&t, a, idx));
    assert_true(et_remove(&t, b, idx));
    assert_int_equal(t.count, 0);
    et_destroy(&t);
    ep_destroy(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_indices),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_two_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
