#!/usr/bin/env python3
"""Writes include/shmem_generic.h, the C11 type-generic interface of
OpenSHMEM 1.6, and include/shmemx_generic.h, the same for the shmemx_
names of shmemx.h, (_Generic selections in C, overloads in C++), from the type
tables below (the distinct C types of shmem.h's tables: int32_t is int on
every LP64 target, so a _Generic may list each C type once only)."""
import os

RMA = [('float', 'float'), ('double', 'double'), ('long double', 'longdouble'), ('char', 'char'),
       ('signed char', 'schar'), ('short', 'short'), ('int', 'int'), ('long', 'long'), ('long long', 'longlong'),
       ('unsigned char', 'uchar'), ('unsigned short', 'ushort'), ('unsigned int', 'uint'),
       ('unsigned long', 'ulong'), ('unsigned long long', 'ulonglong')]
AMO = [('int', 'int'), ('long', 'long'), ('long long', 'longlong'), ('unsigned int', 'uint'),
       ('unsigned long', 'ulong'), ('unsigned long long', 'ulonglong')]
EXT = AMO + [('float', 'float'), ('double', 'double')]
BIT = [('unsigned int', 'uint'), ('unsigned long', 'ulong'), ('unsigned long long', 'ulonglong'),
       ('int', 'int32'), ('long', 'int64')]
P2P = [('short', 'short'), ('int', 'int'), ('long', 'long'), ('long long', 'longlong'),
       ('unsigned short', 'ushort'), ('unsigned int', 'uint'), ('unsigned long', 'ulong'),
       ('unsigned long long', 'ulonglong')]
RBIT = [('unsigned char', 'uchar'), ('unsigned short', 'ushort'), ('unsigned int', 'uint'),
        ('unsigned long', 'ulong'), ('unsigned long long', 'ulonglong'), ('signed char', 'int8'),
        ('short', 'int16'), ('int', 'int32'), ('long', 'int64')]
RMM = [('char', 'char'), ('signed char', 'schar'), ('short', 'short'), ('int', 'int'), ('long', 'long'),
       ('long long', 'longlong'), ('unsigned char', 'uchar'), ('unsigned short', 'ushort'),
       ('unsigned int', 'uint'), ('unsigned long', 'ulong'), ('unsigned long long', 'ulonglong'),
       ('float', 'float'), ('double', 'double'), ('long double', 'longdouble')]
RAR = RMM + [('DART_SHMEM_COMPLEXD', 'complexd'), ('DART_SHMEM_COMPLEXF', 'complexf')]

G = []
GX = []  # shmemx_ names (shmemx_generic.h)


def g(name, pat, types, params, ret='void', ctx=True, disp=None, into=None):
    (G if into is None else into).append(
        dict(name=name, pat=pat, types=types, params=params, ret=ret, ctx=ctx, disp=disp or params[0][0]))


PUT = [('dest', 'T*'), ('source', 'const T*'), ('nelems', 'size_t'), ('pe', 'int')]
STRIDED = [('dest', 'T*'), ('source', 'const T*'), ('dst', 'ptrdiff_t'), ('sst', 'ptrdiff_t'),
           ('nelems', 'size_t'), ('pe', 'int')]
g('shmem_put', 'shmem_{N}_put', RMA, PUT)
g('shmem_p', 'shmem_{N}_p', RMA, [('dest', 'T*'), ('value', 'T'), ('pe', 'int')])
g('shmem_iput', 'shmem_{N}_iput', RMA, STRIDED)
g('shmem_get', 'shmem_{N}_get', RMA, PUT)
g('shmem_g', 'shmem_{N}_g', RMA, [('source', 'const T*'), ('pe', 'int')], ret='T')
g('shmem_iget', 'shmem_{N}_iget', RMA, STRIDED)
g('shmem_put_nbi', 'shmem_{N}_put_nbi', RMA, PUT)
BLOCKED = [('dest', 'T*'), ('source', 'const T*'), ('dst', 'ptrdiff_t'), ('sst', 'ptrdiff_t'),
           ('bsize', 'size_t'), ('nblocks', 'size_t'), ('pe', 'int')]
for pre, into in [('shmem', None), ('shmemx', GX)]:
    g(pre + '_ibput', pre + '_{N}_ibput', RMA, BLOCKED, into=into)
    g(pre + '_ibget', pre + '_{N}_ibget', RMA, BLOCKED, into=into)
g('shmem_get_nbi', 'shmem_{N}_get_nbi', RMA, PUT)
for s in ['', '_nbi']:
    g('shmem_put_signal' + s, 'shmem_{N}_put_signal' + s, RMA,
      [('dest', 'T*'), ('source', 'const T*'), ('nelems', 'size_t'), ('sig_addr', 'uint64_t*'),
       ('signal', 'uint64_t'), ('sig_op', 'int'), ('pe', 'int')])
g('shmem_atomic_fetch', 'shmem_{N}_atomic_fetch', EXT, [('source', 'const T*'), ('pe', 'int')], ret='T')
g('shmem_atomic_set', 'shmem_{N}_atomic_set', EXT, [('dest', 'T*'), ('value', 'T'), ('pe', 'int')])
g('shmem_atomic_swap', 'shmem_{N}_atomic_swap', EXT, [('dest', 'T*'), ('value', 'T'), ('pe', 'int')], ret='T')
g('shmem_atomic_fetch_nbi', 'shmem_{N}_atomic_fetch_nbi', EXT,
  [('fetch', 'T*'), ('source', 'const T*'), ('pe', 'int')])
g('shmem_atomic_swap_nbi', 'shmem_{N}_atomic_swap_nbi', EXT,
  [('fetch', 'T*'), ('dest', 'T*'), ('value', 'T'), ('pe', 'int')])
g('shmem_atomic_compare_swap', 'shmem_{N}_atomic_compare_swap', AMO,
  [('dest', 'T*'), ('cond', 'T'), ('value', 'T'), ('pe', 'int')], ret='T')
g('shmem_atomic_compare_swap_nbi', 'shmem_{N}_atomic_compare_swap_nbi', AMO,
  [('fetch', 'T*'), ('dest', 'T*'), ('cond', 'T'), ('value', 'T'), ('pe', 'int')])
g('shmem_atomic_fetch_inc', 'shmem_{N}_atomic_fetch_inc', AMO, [('dest', 'T*'), ('pe', 'int')], ret='T')
g('shmem_atomic_inc', 'shmem_{N}_atomic_inc', AMO, [('dest', 'T*'), ('pe', 'int')])
g('shmem_atomic_fetch_inc_nbi', 'shmem_{N}_atomic_fetch_inc_nbi', AMO, [('fetch', 'T*'), ('dest', 'T*'), ('pe', 'int')])
g('shmem_atomic_fetch_add', 'shmem_{N}_atomic_fetch_add', AMO, [('dest', 'T*'), ('value', 'T'), ('pe', 'int')],
  ret='T')
g('shmem_atomic_add', 'shmem_{N}_atomic_add', AMO, [('dest', 'T*'), ('value', 'T'), ('pe', 'int')])
g('shmem_atomic_fetch_add_nbi', 'shmem_{N}_atomic_fetch_add_nbi', AMO,
  [('fetch', 'T*'), ('dest', 'T*'), ('value', 'T'), ('pe', 'int')])
for op in ['and', 'or', 'xor']:
    g('shmem_atomic_fetch_' + op, 'shmem_{N}_atomic_fetch_' + op, BIT, [('dest', 'T*'), ('value', 'T'), ('pe', 'int')],
      ret='T')
    g('shmem_atomic_' + op, 'shmem_{N}_atomic_' + op, BIT, [('dest', 'T*'), ('value', 'T'), ('pe', 'int')])
    g('shmem_atomic_fetch_' + op + '_nbi', 'shmem_{N}_atomic_fetch_' + op + '_nbi', BIT,
      [('fetch', 'T*'), ('dest', 'T*'), ('value', 'T'), ('pe', 'int')])
TEAM = [('team', 'shmem_team_t'), ('dest', 'T*'), ('source', 'const T*')]
for c in ['alltoall', 'collect', 'fcollect']:
    g('shmem_' + c, 'shmem_{N}_' + c, RMA, TEAM + [('nelems', 'size_t')], ret='int', ctx=False, disp='dest')
g('shmem_alltoalls', 'shmem_{N}_alltoalls', RMA,
  TEAM + [('dst', 'ptrdiff_t'), ('sst', 'ptrdiff_t'), ('nelems', 'size_t')], ret='int', ctx=False, disp='dest')
g('shmem_broadcast', 'shmem_{N}_broadcast', RMA, TEAM + [('nelems', 'size_t'), ('PE_root', 'int')], ret='int',
  ctx=False, disp='dest')
for op, ty in [('and', RBIT), ('or', RBIT), ('xor', RBIT), ('max', RMM), ('min', RMM), ('sum', RAR), ('prod', RAR)]:
    g('shmem_' + op + '_reduce', 'shmem_{N}_' + op + '_reduce', ty, TEAM + [('nreduce', 'size_t')], ret='int',
      ctx=False, disp='dest')
for pre, into in [('shmem', None), ('shmemx', GX)]:
    for scan in ['inscan', 'exscan']:
        g(pre + '_sum_' + scan, pre + '_{N}_sum_' + scan, RAR, TEAM + [('nelems', 'size_t')], ret='int', ctx=False,
          disp='dest', into=into)
# The deprecated atomic names (OpenSHMEM 1.3) that 1.5 and 1.6 still list,
# type-generic for the types their tables name; no context forms.
DEP = [('int', 'int'), ('long', 'long'), ('long long', 'longlong')]
DEPX = DEP + [('float', 'float'), ('double', 'double')]
g('shmem_finc', 'shmem_{N}_finc', DEP, [('dest', 'T*'), ('pe', 'int')], ret='T', ctx=False)
g('shmem_inc', 'shmem_{N}_inc', DEP, [('dest', 'T*'), ('pe', 'int')], ctx=False)
g('shmem_fadd', 'shmem_{N}_fadd', DEP, [('dest', 'T*'), ('value', 'T'), ('pe', 'int')], ret='T', ctx=False)
g('shmem_add', 'shmem_{N}_add', DEP, [('dest', 'T*'), ('value', 'T'), ('pe', 'int')], ctx=False)
g('shmem_cswap', 'shmem_{N}_cswap', DEP, [('dest', 'T*'), ('cond', 'T'), ('value', 'T'), ('pe', 'int')], ret='T',
  ctx=False)
g('shmem_swap', 'shmem_{N}_swap', DEPX, [('dest', 'T*'), ('value', 'T'), ('pe', 'int')], ret='T', ctx=False)
g('shmem_fetch', 'shmem_{N}_fetch', DEPX, [('source', 'const T*'), ('pe', 'int')], ret='T', ctx=False)
g('shmem_set', 'shmem_{N}_set', DEPX, [('dest', 'T*'), ('value', 'T'), ('pe', 'int')], ctx=False)
ONE = [('ivar', 'T*'), ('cmp', 'int'), ('cmp_value', 'T')]
MANY = [('ivars', 'T*'), ('nelems', 'size_t'), ('status', 'const int*'), ('cmp', 'int'), ('cmp_value', 'T')]
SOME = [('ivars', 'T*'), ('nelems', 'size_t'), ('indices', 'size_t*'), ('status', 'const int*'), ('cmp', 'int'),
        ('cmp_value', 'T')]
MANYV = MANY[:-1] + [('cmp_values', 'const T*')]
SOMEV = SOME[:-1] + [('cmp_values', 'const T*')]
for verb, single_ret, all_ret in [('wait_until', 'void', 'void'), ('test', 'int', 'int')]:
    base = 'shmem_' + verb
    g(base, 'shmem_{N}_' + verb, P2P, ONE, ret=single_ret, ctx=False)
    g(base + '_all', 'shmem_{N}_' + verb + '_all', P2P, MANY, ret=all_ret, ctx=False)
    g(base + '_any', 'shmem_{N}_' + verb + '_any', P2P, MANY, ret='size_t', ctx=False)
    g(base + '_some', 'shmem_{N}_' + verb + '_some', P2P, SOME, ret='size_t', ctx=False)
    g(base + '_all_vector', 'shmem_{N}_' + verb + '_all_vector', P2P, MANYV, ret=all_ret, ctx=False)
    g(base + '_any_vector', 'shmem_{N}_' + verb + '_any_vector', P2P, MANYV, ret='size_t', ctx=False)
    g(base + '_some_vector', 'shmem_{N}_' + verb + '_some_vector', P2P, SOMEV, ret='size_t', ctx=False)


def ctx_name(fn):
    pre, rest = fn.split('_', 1)
    return pre + '_ctx_' + rest


def selection(gd, ctx):
    parts = []
    for T, N in gd['types']:
        fn = gd['pat'].format(N=N)
        parts.append(f'{T}: {ctx_name(fn) if ctx else fn}')
    return '_Generic(*(%s), %s)' % (gd['disp'], ', '.join(parts))


def param_type(ty, T):
    return {'T': T, 'T*': T + '*', 'const T*': 'const ' + T + '*'}.get(ty, ty)


def write(path, guard, what, gs, tail):
    out = [f'''/*
 * {what}
 * Written by dart/shmem/gen_generic.py from its type tables; edit the
 * generator, not this file.
 *
 * C11: a routine name selects its typed routine by _Generic on the type
 * its first pointer argument points to (qualifiers dropped by lvalue
 * conversion), and the form with a context by the number of arguments.
 * C++: the same names as inline overloads.
 */
#ifndef {guard}
#define {guard}

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#ifndef DART_SHMEM_CAT
#define DART_SHMEM_CAT_(a, b) a##b
#define DART_SHMEM_CAT(a, b) DART_SHMEM_CAT_(a, b)
#define DART_SHMEM_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, N, ...) N
#define DART_SHMEM_NARGS(...) DART_SHMEM_NARGS_(__VA_ARGS__, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#endif
''']
    for gd in gs:
        names = [p[0] for p in gd['params']]
        n = len(names)
        if gd['ctx']:
            out.append(f"#define {gd['name']}(...) "
                       f"DART_SHMEM_CAT({gd['name']}_dart_, DART_SHMEM_NARGS(__VA_ARGS__))(__VA_ARGS__)")
            out.append(f"#define {gd['name']}_dart_{n}({', '.join(names)}) "
                       f"{selection(gd, False)}({', '.join(names)})")
            cn = ['ctx'] + names
            out.append(f"#define {gd['name']}_dart_{n + 1}({', '.join(cn)}) "
                       f"{selection(gd, True)}({', '.join(cn)})")
        else:
            out.append(f"#define {gd['name']}({', '.join(names)}) {selection(gd, False)}({', '.join(names)})")
    out += tail[0]
    out.append('#endif /* C11 */\n')
    out.append('#ifdef __cplusplus')
    for gd in gs:
        for T, N in gd['types']:
            fn = gd['pat'].format(N=N)
            ret = T if gd['ret'] == 'T' else gd['ret']
            ps = [(nm, param_type(ty, T)) for nm, ty in gd['params']]
            r = '' if ret == 'void' else 'return '
            decl = ', '.join(f'{t} {nm}' for nm, t in ps)
            args = ', '.join(nm for nm, _ in ps)
            out.append(f"inline {ret} {gd['name']}({decl}) {{ {r}{fn}({args}); }}")
            if gd['ctx']:
                out.append(f"inline {ret} {gd['name']}(shmem_ctx_t ctx, {decl}) {{ {r}{ctx_name(fn)}(ctx, {args}); }}")
    out += tail[1]
    out.append('#endif /* __cplusplus */\n')
    out.append(f'#endif /* {guard} */')
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, 'include', path), 'w') as f:
        f.write('\n'.join(out) + '\n')


# shmem_sync: the team form of C11 (one argument) beside the deprecated
# active-set function (four).
SYNC_C = ['#define shmem_sync(...) DART_SHMEM_CAT(dart_shmem_sync_, DART_SHMEM_NARGS(__VA_ARGS__))(__VA_ARGS__)',
          '#define dart_shmem_sync_1(team) shmem_team_sync(team)',
          '#define dart_shmem_sync_4(PE_start, logPE_stride, PE_size, pSync) '
          'shmem_sync(PE_start, logPE_stride, PE_size, pSync)']
SYNC_CXX = ['inline int shmem_sync(shmem_team_t team) { return shmem_team_sync(team); }']


# shmem_signal_add/set (OpenSHMEM 1.6's C11 forms take a context first) and
# Sandia's shmemx_ names for them: the form by the number of arguments.
def signal_forms(pre):
    c, cxx = [], []
    for op in ['add', 'set']:
        name, ctx = f'{pre}_signal_{op}', f'{pre}_ctx_signal_{op}'
        c += [f'#define {name}(...) DART_SHMEM_CAT(dart_{name}_, DART_SHMEM_NARGS(__VA_ARGS__))(__VA_ARGS__)',
              f'#define dart_{name}_3(sig_addr, signal, pe) {name}(sig_addr, signal, pe)',
              f'#define dart_{name}_4(ctx, sig_addr, signal, pe) {ctx}(ctx, sig_addr, signal, pe)']
        cxx.append(f'inline void {name}(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) '
                   f'{{ {ctx}(ctx, sig_addr, signal, pe); }}')
    return c, cxx


SIG_C, SIG_CXX = signal_forms('shmem')
SYNC_C += SIG_C
SYNC_CXX += SIG_CXX
write('shmem_generic.h', 'DART_SHMEM_GENERIC_H_',
      'The C11 type-generic interface of OpenSHMEM 1.6 (included by shmem.h).', G, (SYNC_C, SYNC_CXX))
write('shmemx_generic.h', 'DART_SHMEMX_GENERIC_H_',
      "The type-generic shmemx_ names (Sandia OpenSHMEM's; included by shmemx.h).", GX, signal_forms('shmemx'))
