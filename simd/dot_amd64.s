//go:build gc && !purego && !noasm

#include "textflag.h"

// Every kernel here has the Go signature
//
//	func k(q, m []T, rows []uint32, out []R)
//
// and computes out[i] = q · m[r*dim : r*dim+dim], where dim = len(q) and
// r = rows[i], or r = i when rows is empty (rows of m in order). The Go
// wrappers have checked every length and row index.
//
// Registers shared by all kernels:
//	SI  q            BX  dim (elements)     R8  m
//	R9  rows or 0    R11 out                R12 len(out)
//	DX  i (output)   DI  current row        CX  byte offset in the row
//	R13 row stride in bytes, or a per-kernel constant
//	AX, R10 scratch

// ROWADDR sets DI to row i of m (stride in bytes given as reg).
#define ROWADDR(label, stride) \
	MOVQ DX, AX; \
	TESTQ R9, R9; \
	JZ label; \
	MOVL (R9)(DX*4), AX; \
label: \
	IMULQ stride, AX; \
	LEAQ (R8)(AX*1), DI

// Graph search visits rows in no order the hardware can predict, so a
// gather prefetches the rows PFDIST places ahead of the one it scores,
// keeping several rows' worth of cache misses in flight.
#define PFDIST 3

// PREFETCHROW pulls every cache line of the row listed at position CX.
#define PREFETCHROW(label, stride) \
	MOVL (R9)(CX*4), AX; \
	IMULQ stride, AX; \
	ADDQ R8, AX; \
	MOVQ stride, R10; \
label: \
	PREFETCHT0 (AX); \
	ADDQ $64, AX; \
	SUBQ $64, R10; \
	JGT label

// PREFETCHFIRST prefetches the first PFDIST listed rows (gathers only).
#define PREFETCHFIRST(loop, pf, done, stride) \
	TESTQ R9, R9; \
	JZ done; \
	XORQ CX, CX; \
loop: \
	CMPQ CX, R12; \
	JGE done; \
	CMPQ CX, $PFDIST; \
	JGE done; \
	PREFETCHROW(pf, stride); \
	INCQ CX; \
	JMP loop; \
done:

// PREFETCHNEXT prefetches the row PFDIST places after output DX.
#define PREFETCHNEXT(label, skip, stride) \
	TESTQ R9, R9; \
	JZ skip; \
	LEAQ PFDIST(DX), CX; \
	CMPQ CX, R12; \
	JGE skip; \
	PREFETCHROW(label, stride); \
skip:

// LOADARGS loads the shared registers; an empty rows slice means
// sequential rows.
#define LOADARGS(label) \
	MOVQ q_base+0(FP), SI; \
	MOVQ q_len+8(FP), BX; \
	MOVQ m_base+24(FP), R8; \
	MOVQ rows_base+48(FP), R9; \
	MOVQ rows_len+56(FP), AX; \
	TESTQ AX, AX; \
	JNZ label; \
	XORQ R9, R9; \
label: \
	MOVQ out_base+72(FP), R11; \
	MOVQ out_len+80(FP), R12; \
	XORQ DX, DX

// func dotF32AVX2(q, m []float32, rows []uint32, out []float32)
TEXT ·dotF32AVX2(SB), NOSPLIT, $0-96
	LOADARGS(f32a2_args)
	LEAQ 0(BX*4), R13

	PREFETCHFIRST(f32a2_pfl, f32a2_pff, f32a2_pfd, R13)

f32a2_row:
	CMPQ DX, R12
	JGE  f32a2_done
	ROWADDR(f32a2_addr, R13)
	PREFETCHNEXT(f32a2_pf, f32a2_pf_no, R13)
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   CX, CX
	MOVQ   BX, AX
	ANDQ   $-32, AX
	SHLQ   $2, AX

f32a2_l32:
	CMPQ        CX, AX
	JGE         f32a2_l8pre
	VMOVUPS     (SI)(CX*1), Y4
	VMOVUPS     32(SI)(CX*1), Y5
	VMOVUPS     64(SI)(CX*1), Y6
	VMOVUPS     96(SI)(CX*1), Y7
	VFMADD231PS (DI)(CX*1), Y4, Y0
	VFMADD231PS 32(DI)(CX*1), Y5, Y1
	VFMADD231PS 64(DI)(CX*1), Y6, Y2
	VFMADD231PS 96(DI)(CX*1), Y7, Y3
	ADDQ        $128, CX
	JMP         f32a2_l32

f32a2_l8pre:
	MOVQ BX, AX
	ANDQ $-8, AX
	SHLQ $2, AX

f32a2_l8:
	CMPQ        CX, AX
	JGE         f32a2_reduce
	VMOVUPS     (SI)(CX*1), Y4
	VFMADD231PS (DI)(CX*1), Y4, Y0
	ADDQ        $32, CX
	JMP         f32a2_l8

f32a2_reduce:
	VADDPS       Y1, Y0, Y0
	VADDPS       Y3, Y2, Y2
	VADDPS       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VPERMILPS    $0x4e, X0, X1
	VADDPS       X1, X0, X0
	VPERMILPS    $0xb1, X0, X1
	VADDSS       X1, X0, X0

f32a2_l1:
	CMPQ        CX, R13
	JGE         f32a2_store
	VMOVSS      (SI)(CX*1), X1
	VFMADD231SS (DI)(CX*1), X1, X0
	ADDQ        $4, CX
	JMP         f32a2_l1

f32a2_store:
	VMOVSS X0, (R11)(DX*4)
	INCQ   DX
	JMP    f32a2_row

f32a2_done:
	VZEROUPPER
	RET

// func dotF32AVX512(q, m []float32, rows []uint32, out []float32)
TEXT ·dotF32AVX512(SB), NOSPLIT, $0-96
	LOADARGS(f32a5_args)
	LEAQ 0(BX*4), R13

	// K1 selects the dim%16 floats of the tail.
	MOVQ  BX, CX
	ANDQ  $15, CX
	MOVL  $1, AX
	SHLL  CX, AX
	DECL  AX
	KMOVW AX, K1

	PREFETCHFIRST(f32a5_pfl, f32a5_pff, f32a5_pfd, R13)

f32a5_row:
	CMPQ DX, R12
	JGE  f32a5_done
	ROWADDR(f32a5_addr, R13)
	PREFETCHNEXT(f32a5_pf, f32a5_pf_no, R13)
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	XORQ   CX, CX
	MOVQ   BX, AX
	ANDQ   $-64, AX
	SHLQ   $2, AX

f32a5_l64:
	CMPQ        CX, AX
	JGE         f32a5_l16pre
	VMOVUPS     (SI)(CX*1), Z4
	VMOVUPS     64(SI)(CX*1), Z5
	VMOVUPS     128(SI)(CX*1), Z6
	VMOVUPS     192(SI)(CX*1), Z7
	VFMADD231PS (DI)(CX*1), Z4, Z0
	VFMADD231PS 64(DI)(CX*1), Z5, Z1
	VFMADD231PS 128(DI)(CX*1), Z6, Z2
	VFMADD231PS 192(DI)(CX*1), Z7, Z3
	ADDQ        $256, CX
	JMP         f32a5_l64

f32a5_l16pre:
	MOVQ BX, AX
	ANDQ $-16, AX
	SHLQ $2, AX

f32a5_l16:
	CMPQ        CX, AX
	JGE         f32a5_tail
	VMOVUPS     (SI)(CX*1), Z4
	VFMADD231PS (DI)(CX*1), Z4, Z0
	ADDQ        $64, CX
	JMP         f32a5_l16

f32a5_tail:
	// Masked-out lanes load as zero and never fault.
	VMOVUPS.Z   (SI)(CX*1), K1, Z4
	VMOVUPS.Z   (DI)(CX*1), K1, Z5
	VFMADD231PS Z5, Z4, Z1

	VADDPS        Z1, Z0, Z0
	VADDPS        Z3, Z2, Z2
	VADDPS        Z2, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPS        Y1, Y0, Y0
	VEXTRACTF128  $1, Y0, X1
	VADDPS        X1, X0, X0
	VPERMILPS     $0x4e, X0, X1
	VADDPS        X1, X0, X0
	VPERMILPS     $0xb1, X0, X1
	VADDSS        X1, X0, X0
	VMOVSS        X0, (R11)(DX*4)
	INCQ          DX
	JMP           f32a5_row

f32a5_done:
	VZEROUPPER
	RET

// func dotI8AVX2(q, m []int8, rows []uint32, out []int32)
TEXT ·dotI8AVX2(SB), NOSPLIT, $0-96
	LOADARGS(i8a2_args)

	PREFETCHFIRST(i8a2_pfl, i8a2_pff, i8a2_pfd, BX)

i8a2_row:
	CMPQ DX, R12
	JGE  i8a2_done
	ROWADDR(i8a2_addr, BX)
	PREFETCHNEXT(i8a2_pf, i8a2_pf_no, BX)
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	XORQ  CX, CX
	MOVQ  BX, AX
	ANDQ  $-64, AX

i8a2_l64:
	CMPQ      CX, AX
	JGE       i8a2_l16pre
	VPMOVSXBW (SI)(CX*1), Y4
	VPMOVSXBW (DI)(CX*1), Y5
	VPMADDWD  Y5, Y4, Y4
	VPADDD    Y4, Y0, Y0
	VPMOVSXBW 16(SI)(CX*1), Y6
	VPMOVSXBW 16(DI)(CX*1), Y7
	VPMADDWD  Y7, Y6, Y6
	VPADDD    Y6, Y1, Y1
	VPMOVSXBW 32(SI)(CX*1), Y4
	VPMOVSXBW 32(DI)(CX*1), Y5
	VPMADDWD  Y5, Y4, Y4
	VPADDD    Y4, Y2, Y2
	VPMOVSXBW 48(SI)(CX*1), Y6
	VPMOVSXBW 48(DI)(CX*1), Y7
	VPMADDWD  Y7, Y6, Y6
	VPADDD    Y6, Y3, Y3
	ADDQ      $64, CX
	JMP       i8a2_l64

i8a2_l16pre:
	MOVQ BX, AX
	ANDQ $-16, AX

i8a2_l16:
	CMPQ      CX, AX
	JGE       i8a2_reduce
	VPMOVSXBW (SI)(CX*1), Y4
	VPMOVSXBW (DI)(CX*1), Y5
	VPMADDWD  Y5, Y4, Y4
	VPADDD    Y4, Y0, Y0
	ADDQ      $16, CX
	JMP       i8a2_l16

i8a2_reduce:
	VPADDD       Y1, Y0, Y0
	VPADDD       Y3, Y2, Y2
	VPADDD       Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, R13

i8a2_l1:
	CMPQ    CX, BX
	JGE     i8a2_store
	MOVBQSX (SI)(CX*1), AX
	MOVBQSX (DI)(CX*1), R10
	IMULL   R10, AX
	ADDL    AX, R13
	INCQ    CX
	JMP     i8a2_l1

i8a2_store:
	MOVL R13, (R11)(DX*4)
	INCQ DX
	JMP  i8a2_row

i8a2_done:
	VZEROUPPER
	RET

// REDUCEZ sums the 16 int32 lanes of Z0 into X0 lane 0.
#define REDUCEZ \
	VEXTRACTI64X4 $1, Z0, Y1; \
	VPADDD        Y1, Y0, Y0; \
	VEXTRACTI128  $1, Y0, X1; \
	VPADDD        X1, X0, X0; \
	VPSHUFD       $0x4e, X0, X1; \
	VPADDD        X1, X0, X0; \
	VPSHUFD       $0xb1, X0, X1; \
	VPADDD        X1, X0, X0

// func dotI8VNNI(q, m []int8, rows []uint32, out []int32)
TEXT ·dotI8VNNI(SB), NOSPLIT, $0-96
	LOADARGS(i8v_args)

	// Z31 = 0x80 in every byte (the +128 shift), Z30 = 1 in every byte.
	MOVL         $0x80808080, AX
	VPBROADCASTD AX, Z31
	MOVL         $0x01010101, AX
	VPBROADCASTD AX, Z30

	// K1 selects the dim%64 bytes of the tail.
	MOVQ  BX, CX
	ANDQ  $63, CX
	MOVQ  $1, AX
	SHLQ  CX, AX
	DECQ  AX
	KMOVQ AX, K1

	// R13 = 128·Σq, the correction every row's sum carries.
	VPXORD Z0, Z0, Z0
	XORQ   CX, CX
	MOVQ   BX, AX
	ANDQ   $-64, AX

i8v_qsum:
	CMPQ     CX, AX
	JGE      i8v_qtail
	VPDPBUSD (SI)(CX*1), Z30, Z0
	ADDQ     $64, CX
	JMP      i8v_qsum

i8v_qtail:
	VMOVDQU8.Z (SI)(CX*1), K1, Z1
	VPDPBUSD   Z1, Z30, Z0
	REDUCEZ
	VMOVD      X0, R13
	SHLL       $7, R13

	PREFETCHFIRST(i8v_pfl, i8v_pff, i8v_pfd, BX)

i8v_row:
	CMPQ DX, R12
	JGE  i8v_done
	ROWADDR(i8v_addr, BX)
	PREFETCHNEXT(i8v_pf, i8v_pf_no, BX)
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	XORQ   CX, CX
	MOVQ   BX, AX
	ANDQ   $-128, AX

i8v_l128:
	CMPQ     CX, AX
	JGE      i8v_l64pre
	VPXORD   (DI)(CX*1), Z31, Z2
	VPXORD   64(DI)(CX*1), Z31, Z3
	VPDPBUSD (SI)(CX*1), Z2, Z0
	VPDPBUSD 64(SI)(CX*1), Z3, Z1
	ADDQ     $128, CX
	JMP      i8v_l128

i8v_l64pre:
	MOVQ BX, AX
	ANDQ $-64, AX

i8v_l64:
	CMPQ     CX, AX
	JGE      i8v_tail
	VPXORD   (DI)(CX*1), Z31, Z2
	VPDPBUSD (SI)(CX*1), Z2, Z0
	ADDQ     $64, CX
	JMP      i8v_l64

i8v_tail:
	// Masked-out row bytes become 0x80 after the XOR, but the matching
	// query bytes load as zero, so they add nothing.
	VMOVDQU8.Z (DI)(CX*1), K1, Z2
	VPXORD     Z31, Z2, Z2
	VMOVDQU8.Z (SI)(CX*1), K1, Z3
	VPDPBUSD   Z3, Z2, Z1

	VPADDD Z1, Z0, Z0
	REDUCEZ
	VMOVD  X0, AX
	SUBL   R13, AX
	MOVL   AX, (R11)(DX*4)
	INCQ   DX
	JMP    i8v_row

i8v_done:
	VZEROUPPER
	RET

// func prefetch(first, last *uint32)
TEXT ·prefetch(SB), NOSPLIT, $0-16
	MOVQ first+0(FP), AX
	MOVQ last+8(FP), BX
	PREFETCHT0 (AX)
	PREFETCHT0 64(AX)
	PREFETCHT0 (BX)
	RET

// func prefetchLine(p unsafe.Pointer)
TEXT ·prefetchLine(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	RET

// func prefetchIndexed(base unsafe.Pointer, n, size uintptr, idx []uint32)
TEXT ·prefetchIndexed(SB), NOSPLIT, $0-48
	MOVQ base+0(FP), R8
	MOVQ n+8(FP), BX
	MOVQ size+16(FP), DX
	MOVQ idx_base+24(FP), SI
	MOVQ idx_len+32(FP), CX
	TESTQ CX, CX
	JZ pidone
piloop:
	MOVL (SI), AX
	CMPQ AX, BX
	JAE pinext
	IMULQ DX, AX
	PREFETCHT0 (R8)(AX*1)
pinext:
	ADDQ $4, SI
	DECQ CX
	JNZ piloop
pidone:
	RET
