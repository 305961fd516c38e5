;; Per-core SIMD ceilings of WebAssembly (what LiteRT.js's XNNPACK kernels can reach in a
;; browser), the counterpart of simd_ceiling.c. Built by experiments/simd_ceiling.py with
;; `wat2wasm --enable-relaxed-simd`; timed in Chromium by apps/web/e2e/simd_ceiling.mjs.
;; Each kernel keeps 8 independent accumulators in registers (no memory traffic; accumulator k
;; starts at k in every lane, so no two chains are the same), so it measures the instruction's
;; throughput, and returns the accumulators' sum, which the
;; driver checks against its closed form (iterations x the constant vectors' dot product; the
;; float32 constants are whole numbers, so their sums stay exact below 2^24).
(module
  ;; i32x4.dot_i8x16_i7x16_add_s (relaxed SIMD's i32x4.relaxed_dot_i8x16_i7x16_add_s, under the name
  ;; wabt 1.0.32 gives it; opcode 0xfd 0x113): 16 multiply-adds per instruction
  (func (export "i8_relaxed_dot") (param $iters i32) (result i32)
    (local $a v128) (local $b v128) (local $c0 v128) (local $c1 v128) (local $c2 v128) (local $c3 v128) (local $c4 v128) (local $c5 v128) (local $c6 v128) (local $c7 v128)
    (local.set $a (v128.const i8x16 -3 1 4 -1 5 -9 2 -6 5 3 -5 8 -9 7 -9 3))
    (local.set $b (v128.const i8x16 2 7 1 8 2 8 1 8 2 8 4 5 9 0 4 5))
    (local.set $c1 (v128.const i32x4 1 1 1 1))
    (local.set $c2 (v128.const i32x4 2 2 2 2))
    (local.set $c3 (v128.const i32x4 3 3 3 3))
    (local.set $c4 (v128.const i32x4 4 4 4 4))
    (local.set $c5 (v128.const i32x4 5 5 5 5))
    (local.set $c6 (v128.const i32x4 6 6 6 6))
    (local.set $c7 (v128.const i32x4 7 7 7 7))
    (block $done (loop $next
      (br_if $done (i32.eqz (local.get $iters)))
      (local.set $c0 (i32x4.dot_i8x16_i7x16_add_s (local.get $a) (local.get $b) (local.get $c0)))
      (local.set $c1 (i32x4.dot_i8x16_i7x16_add_s (local.get $a) (local.get $b) (local.get $c1)))
      (local.set $c2 (i32x4.dot_i8x16_i7x16_add_s (local.get $a) (local.get $b) (local.get $c2)))
      (local.set $c3 (i32x4.dot_i8x16_i7x16_add_s (local.get $a) (local.get $b) (local.get $c3)))
      (local.set $c4 (i32x4.dot_i8x16_i7x16_add_s (local.get $a) (local.get $b) (local.get $c4)))
      (local.set $c5 (i32x4.dot_i8x16_i7x16_add_s (local.get $a) (local.get $b) (local.get $c5)))
      (local.set $c6 (i32x4.dot_i8x16_i7x16_add_s (local.get $a) (local.get $b) (local.get $c6)))
      (local.set $c7 (i32x4.dot_i8x16_i7x16_add_s (local.get $a) (local.get $b) (local.get $c7)))
      (local.set $iters (i32.sub (local.get $iters) (i32.const 1)))
      (br $next)))
    (local.set $a (i32x4.add (i32x4.add (i32x4.add (i32x4.add (i32x4.add (i32x4.add (i32x4.add (local.get $c0) (local.get $c1)) (local.get $c2)) (local.get $c3)) (local.get $c4)) (local.get $c5)) (local.get $c6)) (local.get $c7)))
    (i32.add (i32.add (i32x4.extract_lane 0 (local.get $a)) (i32x4.extract_lane 1 (local.get $a)))
            (i32.add (i32x4.extract_lane 2 (local.get $a)) (i32x4.extract_lane 3 (local.get $a)))))
  ;; f32x4.relaxed_madd: 4 multiply-adds per instruction
  (func (export "f32_relaxed_madd") (param $iters i32) (result f32)
    (local $a v128) (local $b v128) (local $c0 v128) (local $c1 v128) (local $c2 v128) (local $c3 v128) (local $c4 v128) (local $c5 v128) (local $c6 v128) (local $c7 v128)
    (local.set $a (v128.const f32x4 1 -1 2 1))
    (local.set $b (v128.const f32x4 1 1 1 3))
    (local.set $c1 (v128.const f32x4 1 1 1 1))
    (local.set $c2 (v128.const f32x4 2 2 2 2))
    (local.set $c3 (v128.const f32x4 3 3 3 3))
    (local.set $c4 (v128.const f32x4 4 4 4 4))
    (local.set $c5 (v128.const f32x4 5 5 5 5))
    (local.set $c6 (v128.const f32x4 6 6 6 6))
    (local.set $c7 (v128.const f32x4 7 7 7 7))
    (block $done (loop $next
      (br_if $done (i32.eqz (local.get $iters)))
      (local.set $c0 (f32x4.relaxed_madd (local.get $b) (local.get $a) (local.get $c0)))
      (local.set $c1 (f32x4.relaxed_madd (local.get $b) (local.get $a) (local.get $c1)))
      (local.set $c2 (f32x4.relaxed_madd (local.get $b) (local.get $a) (local.get $c2)))
      (local.set $c3 (f32x4.relaxed_madd (local.get $b) (local.get $a) (local.get $c3)))
      (local.set $c4 (f32x4.relaxed_madd (local.get $b) (local.get $a) (local.get $c4)))
      (local.set $c5 (f32x4.relaxed_madd (local.get $b) (local.get $a) (local.get $c5)))
      (local.set $c6 (f32x4.relaxed_madd (local.get $b) (local.get $a) (local.get $c6)))
      (local.set $c7 (f32x4.relaxed_madd (local.get $b) (local.get $a) (local.get $c7)))
      (local.set $iters (i32.sub (local.get $iters) (i32.const 1)))
      (br $next)))
    (local.set $a (f32x4.add (f32x4.add (f32x4.add (f32x4.add (f32x4.add (f32x4.add (f32x4.add (local.get $c0) (local.get $c1)) (local.get $c2)) (local.get $c3)) (local.get $c4)) (local.get $c5)) (local.get $c6)) (local.get $c7)))
    (f32.add (f32.add (f32x4.extract_lane 0 (local.get $a)) (f32x4.extract_lane 1 (local.get $a)))
            (f32.add (f32x4.extract_lane 2 (local.get $a)) (f32x4.extract_lane 3 (local.get $a)))))
)
