"""Prototype: 2-way and 3-way split of a float32 line by llvm.masked.compressstore (AVX-512)."""
import ctypes, time, sys
import numpy as np
import llvmlite.binding as llvm
from llvmlite import ir
llvm.initialize_native_target(); llvm.initialize_native_asmprinter()
W = 16
f32, i64, i1, i32 = ir.FloatType(), ir.IntType(64), ir.IntType(1), ir.IntType(32)
V = ir.VectorType(f32, W); M = ir.VectorType(i1, W)
ptr = ir.PointerType()
mod = ir.Module("m"); mod.triple = llvm.get_process_triple()
cs = ir.Function(mod, ir.FunctionType(ir.VoidType(), [V, ptr, M]), "llvm.masked.compressstore.v16f32")
fn = ir.Function(mod, ir.FunctionType(i64, [ptr, i64, f32, ptr, ptr]), "split2")
a, n, s, lo, hi = fn.args
b = ir.IRBuilder(fn.append_basic_block("e"))
loop = fn.append_basic_block("loop"); done = fn.append_basic_block("done")
pre = b.block
nv = b.udiv(n, i64(W))
b.cbranch(b.icmp_unsigned(">", nv, i64(0)), loop, done)
b.position_at_end(loop)
j = b.phi(i64); p0 = b.phi(i64); p1 = b.phi(i64)
j.add_incoming(i64(0), pre); p0.add_incoming(i64(0), pre); p1.add_incoming(i64(0), pre)
v = b.load(b.gep(a, [b.mul(j, i64(W))], source_etype=f32), typ=V, align=4)
sv = b.insert_element(ir.Constant(V, ir.Undefined), s, i32(0))
sv = b.shuffle_vector(sv, ir.Constant(V, ir.Undefined), ir.Constant(ir.VectorType(i32, W), [0] * W))
m = b.fcmp_ordered("<", v, sv)
nm = b.xor(m, ir.Constant(M, [1] * W))
b.call(cs, [v, b.gep(lo, [p0], source_etype=f32), m])
b.call(cs, [v, b.gep(hi, [p1], source_etype=f32), nm])
cnt = b.zext(b.bitcast(m, ir.IntType(W)), i64)
pc = b.call(mod.declare_intrinsic("llvm.ctpop", [i64]), [cnt])
p0n = b.add(p0, pc); p1n = b.add(p1, b.sub(i64(W), pc)); jn = b.add(j, i64(1))
j.add_incoming(jn, loop); p0.add_incoming(p0n, loop); p1.add_incoming(p1n, loop)
b.cbranch(b.icmp_unsigned("<", jn, nv), loop, done)
b.position_at_end(done)
r = b.phi(i64); r.add_incoming(i64(0), pre); r.add_incoming(p0n, loop)
b.ret(r)
tm = llvm.Target.from_default_triple().create_target_machine(cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(), opt=3)
mm = llvm.parse_assembly(str(mod)); mm.verify()
ee = llvm.create_mcjit_compiler(mm, tm); ee.finalize_object()
asm = tm.emit_assembly(mm)
print([l.strip() for l in asm.splitlines() if "compress" in l][:4])
f = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p)(ee.get_function_address("split2"))
N = 1 << 21
x = np.random.default_rng(0).standard_normal(N).astype(np.float32)
o0 = np.empty(N, np.float32); o1 = np.empty(N, np.float32)
best = 1e9
for _ in range(20):
    t0 = time.perf_counter(); k = f(x.ctypes.data, N, 0.0, o0.ctypes.data, o1.ctypes.data); best = min(best, time.perf_counter() - t0)
print("split2 %.3f ms, %.2f ns/elem, k=%d" % (best * 1e3, best / N * 1e9, k), np.array_equal(o0[:k], x[x < 0]), np.array_equal(o1[:N - k], x[~(x < 0)]))
best = 1e9
for _ in range(20):
    t0 = time.perf_counter(); np.copyto(o0, x); best = min(best, time.perf_counter() - t0)
print("copy %.3f ms" % (best * 1e3))
best = 1e9
for _ in range(5):
    y = x.copy(); t0 = time.perf_counter(); y.partition(N // 2); best = min(best, time.perf_counter() - t0)
print("np.partition %.3f ms" % (best * 1e3))
