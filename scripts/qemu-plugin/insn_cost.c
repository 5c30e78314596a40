/*
 * A qemu-user plugin that counts executed guest instructions and a weighted cost that
 * approximates a Cortex-A72: each instruction is classified by its mnemonic (from qemu's
 * disassembler) when its translation block is translated, and inline counters add the
 * block's totals each time it runs, so the counts are exact and repeatable.
 *
 * Arguments (comma-separated after -plugin path):
 *   out=FILE     where to write the counts (default: qemu's log, i.e. stderr)
 *   start=ADDR   address of _sysy_starttime, stop=ADDR address of _sysy_stoptime: the
 *                instructions between entering the one and entering the other are also
 *                counted separately, as the timed region.
 *   blocks=FILE  also count the executions of each translated block and write one line per
 *                block to FILE: `vaddr instructions bytes executions region_executions`
 *                (hex address, then decimal), blocks translated more than once merged. The
 *                executions times the instructions sum to `insns` (and the region's to
 *                `region_insns`), as both are added on entry to a block.
 *
 * Weights: `enum weight` below, one per instruction class (latency-flavoured, per
 * instruction or per register moved): ALU and branches 1, multiply 3, divide 12, load 3,
 * store 2, VFP add/mul 3, VFP divide 10, ... (a flat count beside the modelled cycles).
 *
 * Debian's qemu-user ships no plugin header, so the few API (version 1) declarations used
 * are written out here.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the qemu plugin API, version 1 ---------------------------------------------------- */

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
                                              void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
char *qemu_plugin_insn_disas(const struct qemu_plugin_insn *insn);
void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* ---- weights ----------------------------------------------------------------------------- */

/*
 * The weight of each instruction class: the bench's flat cost, reported beside its modelled
 * cycles (scripts/a72.py), which are what the compiler's cost model follows.
 */
enum weight {
    W_ALU = 1,          /* ALU, move, compare, branch */
    W_MULTIPLY = 3,     /* mul, mla, mls, smull, ... */
    W_DIVIDE = 12,      /* sdiv, udiv */
    W_LOAD = 3,         /* per register: ldr*, ldm, pop */
    W_STORE = 2,        /* per register: str*, stm, push */
    W_VFP_ARITH = 3,    /* vadd, vsub, vmul, vnmul */
    W_VFP_MUL_ACC = 5,  /* vmla, vmls, vnmla, vnmls, vfma, vfms, vfnma, vfnms */
    W_VFP_DIVIDE = 10,  /* vdiv */
    W_VFP_SQRT = 14,    /* vsqrt */
    W_VFP_CONVERT = 3,  /* vcvt */
    W_VFP_LOAD = 3,     /* per register: vldr, vldm, vpop */
    W_VFP_STORE = 2,    /* per register: vstr, vstm, vpush */
    W_TRANSFER = 2,     /* core <-> VFP: vmov r/s, vmrs, vmsr */
};

/* ---- counting ---------------------------------------------------------------------------- */

static uint64_t insns, cost;
static uint64_t region_insns, region_cost, region_count;
static uint64_t start_insns, start_cost;
static uint64_t start_addr = UINT64_MAX, stop_addr = UINT64_MAX;
static const char *out_path;

/* ---- per-block counts (blocks=FILE) ----------------------------------------------------- */

struct block {
    uint64_t vaddr;
    uint32_t insns, bytes;
    uint64_t executions; /* added inline on every entry */
    uint64_t at_start;   /* executions when the current timed region started */
    uint64_t region;     /* executions inside timed regions */
};

static const char *blocks_path;
static struct block **blocks;
static size_t n_blocks, blocks_room;
static int in_region;

static struct block *new_block(uint64_t vaddr, uint32_t insns, uint32_t bytes) {
    if (n_blocks == blocks_room) {
        blocks_room = blocks_room ? 2 * blocks_room : 1024;
        blocks = realloc(blocks, blocks_room * sizeof *blocks);
        if (!blocks) {
            fputs("insn_cost: out of memory\n", stderr);
            exit(1);
        }
    }
    struct block *b = calloc(1, sizeof *b);
    if (!b) {
        fputs("insn_cost: out of memory\n", stderr);
        exit(1);
    }
    b->vaddr = vaddr;
    b->insns = insns;
    b->bytes = bytes;
    blocks[n_blocks++] = b;
    return b;
}

static int by_address(const void *x, const void *y) {
    const struct block *a = *(struct block *const *)x, *b = *(struct block *const *)y;
    if (a->vaddr != b->vaddr)
        return a->vaddr < b->vaddr ? -1 : 1;
    return a->insns < b->insns ? -1 : a->insns > b->insns;
}

static void write_blocks(void) {
    FILE *f = fopen(blocks_path, "w");
    if (!f) {
        fprintf(stderr, "insn_cost: cannot write %s\n", blocks_path);
        return;
    }
    qsort(blocks, n_blocks, sizeof *blocks, by_address);
    for (size_t i = 0; i < n_blocks;) {
        struct block *b = blocks[i];
        uint64_t executions = 0, region = 0;
        size_t j = i;
        for (; j < n_blocks && blocks[j]->vaddr == b->vaddr && blocks[j]->insns == b->insns; j++) {
            executions += blocks[j]->executions;
            region += blocks[j]->region;
        }
        if (executions)
            fprintf(f, "%" PRIx64 " %u %u %" PRIu64 " %" PRIu64 "\n", b->vaddr, b->insns, b->bytes,
                    executions, region);
        i = j;
    }
    fclose(f);
}

static int starts_with(const char *s, const char *prefix) {
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int any_prefix(const char *s, const char *const *prefixes) {
    for (; *prefixes; prefixes++)
        if (starts_with(s, *prefixes))
            return 1;
    return 0;
}

/* Registers in a `{...}` list of ldm/stm/push/pop and their VFP forms. */
static int list_registers(const char *operands) {
    const char *open = strchr(operands, '{');
    if (!open)
        return 1;
    int n = 0, in_range = 0, prev = -1;
    for (const char *p = open + 1; *p && *p != '}'; p++) {
        if ((*p == 'r' || *p == 's' || *p == 'd') && p[1] >= '0' && p[1] <= '9') {
            int num = atoi(p + 1);
            n += in_range && prev >= 0 ? num - prev : 1;
            in_range = 0;
            prev = num;
        } else if (starts_with(p, "lr") || starts_with(p, "pc") || starts_with(p, "ip") ||
                   starts_with(p, "sp") || starts_with(p, "fp") || starts_with(p, "sl") ||
                   starts_with(p, "sb")) {
            n++;
            p++;
            prev = -1;
        } else if (*p == '-') {
            in_range = 1;
        }
    }
    return n > 0 ? n : 1;
}

/* The weight of one instruction given its disassembly. */
static uint64_t weight(const char *disas) {
    char mnemonic[32] = {0};
    const char *p = disas;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t len = strcspn(p, " \t");
    if (len >= sizeof mnemonic)
        len = sizeof mnemonic - 1;
    memcpy(mnemonic, p, len);
    const char *operands = p + len;
    const char *m = mnemonic;

    static const char *const divides[] = {"sdiv", "udiv", 0};
    static const char *const fdiv[] = {"vdiv", 0};
    static const char *const fsqrt[] = {"vsqrt", 0};
    static const char *const fmac[] = {"vmla", "vmls", "vnmla", "vnmls", "vfma", "vfms",
                                       "vfnma", "vfnms", 0};
    static const char *const fops[] = {"vadd", "vsub", "vmul", "vnmul", 0};
    static const char *const fcvt[] = {"vcvt", 0};
    static const char *const fload[] = {"vldr", "vldm", "vpop", "vld1", "vld2", 0};
    static const char *const fstore[] = {"vstr", "vstm", "vpush", "vst1", "vst2", 0};
    static const char *const transfers[] = {"vmrs", "vmsr", 0};
    static const char *const muls[] = {"mul", "mla", "mls", "smul", "umul", "smla", "umla",
                                       "smmul", "smmla", "smmls", "smlal", "umlal", 0};
    static const char *const loads[] = {"ldr", "ldm", "pop", 0};
    static const char *const stores[] = {"str", "stm", "push", 0};

    if (any_prefix(m, divides))
        return W_DIVIDE;
    if (any_prefix(m, fdiv))
        return W_VFP_DIVIDE;
    if (any_prefix(m, fsqrt))
        return W_VFP_SQRT;
    if (any_prefix(m, fmac))
        return W_VFP_MUL_ACC;
    if (any_prefix(m, fops))
        return W_VFP_ARITH;
    if (any_prefix(m, fcvt))
        return W_VFP_CONVERT;
    if (any_prefix(m, fload))
        return W_VFP_LOAD * (uint64_t)list_registers(operands);
    if (any_prefix(m, fstore))
        return W_VFP_STORE * (uint64_t)list_registers(operands);
    if (any_prefix(m, transfers))
        return W_TRANSFER;
    if (starts_with(m, "vmov")) {
        /* A move between a core and a VFP register costs a transfer. */
        int core = strstr(operands, "r") != NULL || strstr(operands, "ip") != NULL ||
                   strstr(operands, "lr") != NULL;
        int vfp = strstr(operands, "s") != NULL || strstr(operands, "d") != NULL;
        return core && vfp ? W_TRANSFER : W_ALU;
    }
    if (any_prefix(m, muls))
        return W_MULTIPLY;
    if (any_prefix(m, loads))
        return W_LOAD * (uint64_t)(starts_with(m, "ldm") || starts_with(m, "pop") ? list_registers(operands) : 1);
    if (any_prefix(m, stores))
        return W_STORE * (uint64_t)(starts_with(m, "stm") || starts_with(m, "push") ? list_registers(operands) : 1);
    return W_ALU;
}

static void region_start(unsigned int vcpu, void *udata) {
    (void)vcpu;
    (void)udata;
    start_insns = insns;
    start_cost = cost;
    in_region = 1;
    for (size_t i = 0; i < n_blocks; i++)
        blocks[i]->at_start = blocks[i]->executions;
}

static void region_stop(unsigned int vcpu, void *udata) {
    (void)vcpu;
    (void)udata;
    region_insns += insns - start_insns;
    region_cost += cost - start_cost;
    region_count++;
    if (in_region)
        for (size_t i = 0; i < n_blocks; i++)
            blocks[i]->region += blocks[i]->executions - blocks[i]->at_start;
    in_region = 0;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    uint64_t tb_cost = 0;
    for (size_t i = 0; i < n; i++) {
        char *d = qemu_plugin_insn_disas(qemu_plugin_tb_get_insn(tb, i));
        tb_cost += d ? weight(d) : 1;
        free(d);
    }
    uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
    if (vaddr == start_addr)
        qemu_plugin_register_vcpu_tb_exec_cb(tb, region_start, QEMU_PLUGIN_CB_NO_REGS, NULL);
    if (vaddr == stop_addr)
        qemu_plugin_register_vcpu_tb_exec_cb(tb, region_stop, QEMU_PLUGIN_CB_NO_REGS, NULL);
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns, n);
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &cost, tb_cost);
    if (blocks_path && n > 0) {
        struct qemu_plugin_insn *last = qemu_plugin_tb_get_insn(tb, n - 1);
        uint32_t bytes = (uint32_t)(qemu_plugin_insn_vaddr(last) + qemu_plugin_insn_size(last) - vaddr);
        /* Translated inside a region: counted from zero, which at_start already is. */
        struct block *b = new_block(vaddr, (uint32_t)n, bytes);
        qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->executions, 1);
    }
}

static void at_exit(qemu_plugin_id_t id, void *udata) {
    (void)id;
    (void)udata;
    char buf[256];
    snprintf(buf, sizeof buf,
             "insns %" PRIu64 "\ncost %" PRIu64 "\nregion_insns %" PRIu64 "\nregion_cost %" PRIu64
             "\nregions %" PRIu64 "\n",
             insns, cost, region_insns, region_cost, region_count);
    FILE *f = out_path ? fopen(out_path, "w") : NULL;
    if (f) {
        fputs(buf, f);
        fclose(f);
    } else {
        qemu_plugin_outs(buf);
    }
    if (blocks_path)
        write_blocks();
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                                               int argc, char **argv) {
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (starts_with(argv[i], "out="))
            out_path = argv[i] + 4;
        else if (starts_with(argv[i], "start="))
            start_addr = strtoull(argv[i] + 6, NULL, 0) & ~1ULL;
        else if (starts_with(argv[i], "stop="))
            stop_addr = strtoull(argv[i] + 5, NULL, 0) & ~1ULL;
        else if (starts_with(argv[i], "blocks="))
            blocks_path = argv[i] + 7;
        else {
            fprintf(stderr, "insn_cost: unknown argument '%s'\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
