/*===- capi-test.c - TileTag's C API, from plain C -----------------------===*\
|*                                                                            *|
|* Part of the TileTag project.                                               *|
|*                                                                            *|
|* Registers TileTag, parses examples/gemm.mlir, walks its kernels, proves    *|
|* it, reads the counterexample of a broken variant, estimates, runs the CPU  *|
|* oracle on buffers owned here, compiles to PTX and a cubin, reports the     *|
|* lowering's slower paths, and applies a transform script, all through       *|
|* TileTag-c and upstream's mlir-c.                                           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

// REQUIRES: ptxas
// RUN: sed -e '/schedule.mbarrier.wait %%full/d' %examples/gemm.mlir > %t-broken.mlir
// RUN: tiletag-capi-test %examples %t-broken.mlir 2>&1 | FileCheck %s
//
// What it prints:
// CHECK-LABEL: TileTag {{[0-9]+\.[0-9]+\.[0-9]+}}
// CHECK: kernels: 2
// CHECK-NEXT: @gemm grid(2) contract 'gemm_reference' check 'gemm'
// CHECK-NEXT:   operand A: memref<?x?xbf16>
// CHECK-NEXT:   operand B: memref<?x?xbf16>
// CHECK-NEXT:   operand C: memref<?x?xf32>
// CHECK-NEXT:   size M = 256
// CHECK-NEXT:   size N = 256
// CHECK-NEXT:   size K = 320
// CHECK-NEXT: @gemm_reference grid(2) contract '' check 'gemm'
// CHECK: verify gemm.mlir: @gemm proved with {{[0-9]+}} queries
// CHECK-NEXT: obligations: {{[0-9]+}} proved, 0 failed, 0 unknown
// CHECK-NEXT: verify gemm.mlir: current proof stamps: tags 1, schedule 1
// CHECK: diagnostic: read-after-write on %a_ring (line {{[0-9]+}}): the access at line {{[0-9]+}} happens before this one through a barrier does not hold
// CHECK: verify broken: @gemm NOT proved
// CHECK: failed: checker schedule
// CHECK-NEXT: what: {{.+}}
// CHECK-NEXT: at: {{.*}}broken.mlir:{{[0-9]+}}:{{[0-9]+}}
// CHECK: value size.M = {{[0-9]+}}
// CHECK: value pid0 = {{[0-9]+}}
// CHECK: point tile.copy iv0@line{{[0-9]+}}={{[0-9]+}} | slot [{{[0-9]+}}] of %a_ring (line {{[0-9]+}})
// CHECK: point tile.read iv0@line{{[0-9]+}}={{[0-9]+}} | slot [{{[0-9]+}}] of %a_ring (line {{[0-9]+}})
// CHECK-NEXT: replay flags: --size M={{[0-9]+}},N={{[0-9]+}},K={{[0-9]+}} --set pid0={{[0-9]+}} --set pid1={{[0-9]+}}
// CHECK: obligations: {{[0-9]+}} proved, {{[1-9][0-9]*}} failed, 0 unknown
// CHECK-NEXT: verify broken: current proof stamps: tags 1, schedule 0
// CHECK: estimate: 1024 programs, 256 threads, {{[0-9.]+}} us > 0, bound by tensor
// CHECK: diagnostic: {{.*}}no problem size named 'Q'
// CHECK-NEXT: estimate with an unknown size: null
// CHECK: oracle: status 0, 2 programs, M=130 N=70 K=100
// CHECK-NEXT: oracle: check C matches over 9100 elements
// CHECK-NEXT: oracle: C written back: yes
// CHECK-NEXT: oracle: unchecked run: status 0, 0 checks, same C: yes
// CHECK: diagnostic: {{.*}}operand B has shape (101, 70) but the launch gives it (100, 70)
// CHECK-NEXT: oracle: bad shape: status 3: operand B has shape (101, 70)
// CHECK: diagnostic: {{.*}}no buffer for operand C of @gemm
// CHECK-NEXT: oracle: missing operand: status 3
// CHECK: compile: the PTX has an .entry
// CHECK-NEXT: compile: 1, {{[0-9]+}} bytes of PTX
// CHECK-NEXT: compile bin: 1, starts with an ELF header
// CHECK: diagnostic: {{.*}}format must be 'isa' (PTX) or 'bin' (cubin), not 'sass'
// CHECK-NEXT: compile sass: 0
// CHECK: diagnostic: {{.*}}need {{[0-9]+}} bytes of shared memory; the AMDGPU lowering gives a program at most 65536
// CHECK: compile gfx942: 0
// CHECK: fallbacks: pipelined gemm: 1, 0 remarks
// CHECK: fallbacks: first remark: held in the global workspace (65536 bytes per program): loop-carried tile #0
// CHECK: fallbacks: naive fp8 gemm on sm_90a: 1, remarks
// CHECK: diagnostic: {{.*}}the AMDGPU lowering gives a program at most 65536
// CHECK-NEXT: fallbacks: pipelined gemm on gfx942: 0
// CHECK: transform: applied 1, the result: proved
// CHECK-NEXT: diagnostic: @gemm has a schedule already
// CHECK-NEXT: transform: a failing script: applied 0
// CHECK: print: tile.kernel @gemm_reference(%A: memref<?x?xbf16> {tile.name = "A"}
// CHECK: done

#include "TileTag-c/Compile.h"
#include "TileTag-c/CostModel.h"
#include "TileTag-c/Dialects.h"
#include "TileTag-c/Kernel.h"
#include "TileTag-c/Oracle.h"
#include "TileTag-c/Verification.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void printString(MlirStringRef s, void *stream) {
  fwrite(s.data, 1, s.length, (FILE *)stream);
}

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

static void printRef(const char *label, MlirStringRef s) {
  printf("%s%.*s\n", label, (int)s.length, s.data);
}

/* Every diagnostic, on stdout, so that FileCheck sees it in order. */
static MlirLogicalResult onDiagnostic(MlirDiagnostic d, void *userData) {
  (void)userData;
  if (mlirDiagnosticGetSeverity(d) == MlirDiagnosticError) {
    printf("diagnostic: ");
    mlirDiagnosticPrint(d, printString, stdout);
    printf("\n");
  }
  return mlirLogicalResultSuccess();
}

static MlirModule parseFile(MlirContext ctx, const char *dir,
                            const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  MlirModule m = mlirModuleCreateParseFromFile(ctx, str(path));
  if (mlirModuleIsNull(m)) {
    fprintf(stderr, "cannot parse %s\n", path);
    exit(1);
  }
  return m;
}

static void walkKernels(MlirModule module) {
  intptr_t n = tiletagModuleGetNumKernels(module);
  printf("kernels: %ld\n", (long)n);
  for (intptr_t i = 0; i < n; ++i) {
    MlirOperation k = tiletagModuleGetKernel(module, i);
    MlirStringRef name = tiletagKernelGetName(k);
    MlirStringRef contract = tiletagKernelGetContract(k);
    printf("@%.*s grid(%ld) contract '%.*s' check '%.*s'\n", (int)name.length,
           name.data, (long)tiletagKernelGetGridRank(k), (int)contract.length,
           contract.data, (int)tiletagKernelGetCheck(k).length,
           tiletagKernelGetCheck(k).data);
    for (intptr_t a = 0; a < tiletagKernelGetNumOperands(k); ++a) {
      MlirStringRef operand = tiletagKernelGetOperandName(k, a);
      printf("  operand %.*s: ", (int)operand.length, operand.data);
      mlirTypePrint(tiletagKernelGetOperandType(k, a), printString, stdout);
      printf("\n");
    }
    for (intptr_t s = 0; s < tiletagKernelGetNumSizes(k); ++s) {
      MlirStringRef size = tiletagKernelGetSizeName(k, s);
      printf("  size %.*s = %ld\n", (int)size.length, size.data,
             (long)tiletagKernelGetSizeDefault(k, s));
    }
  }
}

/* Counts obligations by status; prints the first failure in full. */
static int report(TileTagVerdict v) {
  intptr_t counts[3] = {0, 0, 0};
  int printed = 0;
  for (intptr_t i = 0; i < tiletagVerdictGetNumObligations(v); ++i) {
    TileTagObligation o = tiletagVerdictGetObligation(v, i);
    TileTagObligationStatus status = tiletagObligationGetStatus(o);
    counts[status]++;
    if (status != TileTagObligationFailed || printed++)
      continue;
    printRef("failed: checker ", tiletagObligationGetChecker(o));
    printRef("  what: ", tiletagObligationGetWhat(o));
    printRef("  at: ", tiletagObligationGetLocation(o));
    TileTagCounterexample c = tiletagObligationGetCounterexample(o);
    if (tiletagCounterexampleIsNull(c))
      continue;
    for (intptr_t j = 0; j < tiletagCounterexampleGetNumValues(c); ++j) {
      MlirStringRef name = tiletagCounterexampleGetValueName(c, j);
      printf("  value %.*s = %ld\n", (int)name.length, name.data,
             (long)tiletagCounterexampleGetValue(c, j));
    }
    for (intptr_t p = 0; p < tiletagCounterexampleGetNumPoints(c); ++p) {
      TileTagCounterexamplePoint point = tiletagCounterexampleGetPoint(c, p);
      MlirStringRef op = tiletagPointGetOpName(point);
      printf("  point %.*s", (int)op.length, op.data);
      for (intptr_t l = 0; l < tiletagPointGetNumLoops(point); ++l) {
        MlirStringRef loop = tiletagPointGetLoopName(point, l);
        printf(" %.*s=%ld", (int)loop.length, loop.data,
               (long)tiletagPointGetLoopValue(point, l));
      }
      for (intptr_t a = 0; a < tiletagPointGetNumAccesses(point); ++a) {
        MlirStringRef kind = tiletagPointGetAccessKind(point, a);
        MlirStringRef buffer = tiletagPointGetAccessBuffer(point, a);
        printf(" | %.*s [", (int)kind.length, kind.data);
        for (intptr_t d = 0; d < tiletagPointGetAccessRank(point, a); ++d)
          printf("%s%ld", d ? ", " : "",
                 (long)tiletagPointGetAccessIndex(point, a, d));
        printf("] of %.*s", (int)buffer.length, buffer.data);
      }
      printf("\n");
    }
    printRef("  replay flags:", tiletagCounterexampleGetReplayFlags(c));
  }
  printf("obligations: %ld proved, %ld failed, %ld unknown\n", (long)counts[0],
         (long)counts[1], (long)counts[2]);
  return (int)counts[1];
}

static void verify(MlirModule module, const char *what) {
  MlirOperation gemm = tiletagModuleLookupKernel(module, str("gemm"));
  TileTagVerdict v = tiletagCheckKernel(gemm, tiletagCheckOptionsGetDefault());
  printf("%s: @gemm %s with %ld queries\n", what,
         tiletagVerdictIsProved(v) ? "proved" : "NOT proved",
         (long)tiletagVerdictGetNumQueries(v));
  report(v);
  printf("%s: current proof stamps: tags %d, schedule %d\n", what,
         tiletagKernelHasCurrentTagProof(gemm),
         tiletagKernelHasCurrentScheduleProof(gemm));
  tiletagVerdictDestroy(v);
}

static void estimate(MlirModule module) {
  MlirOperation gemm = tiletagModuleLookupKernel(module, str("gemm"));
  TileTagNamedInt sizes[] = {
      {str("M"), 4096}, {str("N"), 4096}, {str("K"), 4096}};
  TileTagEstimate e = tiletagEstimateKernel(gemm, str("sm_90a"), 3, sizes, 0,
                                            NULL, 0, str(""));
  printf("estimate: %ld programs, %ld threads, %.1f us %s 0, bound by ",
         (long)tiletagEstimateGetPrograms(e),
         (long)tiletagEstimateGetThreadsPerCTA(e),
         tiletagEstimateGetMicroseconds(e),
         tiletagEstimateGetMicroseconds(e) > 0 ? ">" : "<=");
  printRef("", tiletagEstimateGetBoundBy(e));
  tiletagEstimateDestroy(e);
  TileTagNamedInt bad[] = {{str("Q"), 1}};
  e = tiletagEstimateKernel(gemm, str("sm_90a"), 1, bad, 0, NULL, 0, str(""));
  printf("estimate with an unknown size: %s\n",
         tiletagEstimateIsNull(e) ? "null" : "NOT null");
}

/* Round-to-nearest-even float -> bf16 bits. */
static uint16_t toBF16(float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  bits += 0x7fff + ((bits >> 16) & 1);
  return (uint16_t)(bits >> 16);
}

static void oracle(MlirModule module) {
  enum { M = 130, N = 70, K = 100 };
  uint16_t *a = malloc(sizeof(uint16_t) * M * K);
  uint16_t *b = malloc(sizeof(uint16_t) * K * N);
  float *c = calloc(M * N, sizeof(float));
  unsigned seed = 1;
  for (int i = 0; i < M * K; ++i)
    a[i] = toBF16((float)((seed = seed * 1103515245u + 12345u) % 200) / 100 - 1);
  for (int i = 0; i < K * N; ++i)
    b[i] = toBF16((float)((seed = seed * 1103515245u + 12345u) % 200) / 100 - 1);
  int64_t shapeA[] = {M, K}, shapeB[] = {K, N}, shapeC[] = {M, N};
  TileTagBuffer buffers[] = {{str("A"), a, 2, shapeA},
                             {str("B"), b, 2, shapeB},
                             {str("C"), c, 2, shapeC}};
  MlirOperation gemm = tiletagModuleLookupKernel(module, str("gemm"));
  TileTagOracleRun run =
      tiletagOracleRun(gemm, 3, buffers, 0, NULL, 0, NULL, /*check=*/true);
  printf("oracle: status %d, %ld programs,", tiletagOracleRunGetStatus(run),
         (long)tiletagOracleRunGetPrograms(run));
  for (intptr_t i = 0; i < tiletagOracleRunGetNumSizes(run); ++i) {
    TileTagNamedInt s = tiletagOracleRunGetSize(run, i);
    printf(" %.*s=%ld", (int)s.name.length, s.name.data, (long)s.value);
  }
  printf("\n");
  for (intptr_t i = 0; i < tiletagOracleRunGetNumChecks(run); ++i) {
    MlirStringRef name = tiletagOracleRunGetCheckName(run, i);
    printf("oracle: check %.*s %s over %ld elements\n", (int)name.length,
           name.data,
           tiletagOracleRunGetCheckMatches(run, i) ? "matches" : "MISMATCHES",
           (long)tiletagOracleRunGetCheckElements(run, i));
  }
  tiletagOracleRunDestroy(run);

  /* The outputs were written back: C holds the product. */
  double sum = 0;
  for (int i = 0; i < M * N; ++i)
    sum += c[i] < 0 ? -c[i] : c[i];
  printf("oracle: C written back: %s\n", sum > 0 ? "yes" : "no");

  /* Without a check, the same product again, from any C. */
  float *first = malloc(sizeof(float) * M * N);
  memcpy(first, c, sizeof(float) * M * N);
  for (int i = 0; i < M * N; ++i)
    c[i] = 1e30f;
  TileTagOracleRun again =
      tiletagOracleRun(gemm, 3, buffers, 0, NULL, 0, NULL, /*check=*/false);
  printf("oracle: unchecked run: status %d, %ld checks, same C: %s\n",
         tiletagOracleRunGetStatus(again),
         (long)tiletagOracleRunGetNumChecks(again),
         memcmp(first, c, sizeof(float) * M * N) ? "no" : "yes");
  tiletagOracleRunDestroy(again);
  free(first);

  /* Shapes the launch does not give are bad input, named. */
  int64_t wrongB[] = {K + 1, N};
  buffers[1].shape = wrongB;
  run = tiletagOracleRun(gemm, 3, buffers, 0, NULL, 0, NULL, true);
  MlirStringRef message = tiletagOracleRunGetMessage(run);
  printf("oracle: bad shape: status %d: %.*s\n", tiletagOracleRunGetStatus(run),
         (int)message.length, message.data);
  tiletagOracleRunDestroy(run);
  buffers[1].shape = shapeB;
  run = tiletagOracleRun(gemm, 2, buffers, 0, NULL, 0, NULL, true);
  printf("oracle: missing operand: status %d\n", tiletagOracleRunGetStatus(run));
  tiletagOracleRunDestroy(run);
  free(a);
  free(b);
  free(c);
}

static void countBytes(MlirStringRef s, void *total) {
  const char *entry = strstr(s.data, ".entry");
  *(size_t *)total += s.length;
  if (entry && entry < s.data + s.length)
    printf("compile: the PTX has an .entry\n");
}

static void firstBytes(MlirStringRef s, void *out) {
  memcpy(out, s.data, s.length < 4 ? s.length : 4);
}

/* Counts remarks and prints the first; other handlers see them too. */
static MlirLogicalResult onRemark(MlirDiagnostic d, void *count) {
  if (mlirDiagnosticGetSeverity(d) == MlirDiagnosticRemark &&
      (*(int *)count)++ == 0) {
    printf("fallbacks: first remark: ");
    mlirDiagnosticPrint(d, printString, stdout);
    printf("\n");
  }
  return mlirLogicalResultFailure();
}

static void fallbacks(MlirContext ctx, MlirModule gemm, const char *examples) {
  int remarks = 0;
  MlirDiagnosticHandlerID id =
      mlirContextAttachDiagnosticHandler(ctx, onRemark, &remarks, NULL);
  MlirLogicalResult ok = tiletagReportFallbacks(gemm, str("sm_90a"));
  printf("fallbacks: pipelined gemm: %d, %d remarks\n",
         mlirLogicalResultIsSuccess(ok), remarks);
  MlirModule naive = parseFile(ctx, examples, "naive/gemm_fp8.mlir");
  ok = tiletagReportFallbacks(naive, str("sm_90a"));
  printf("fallbacks: naive fp8 gemm on sm_90a: %d, %s\n",
         mlirLogicalResultIsSuccess(ok), remarks > 0 ? "remarks" : "none");
  /* Its rings do not fit an AMD workgroup's LDS: the lowering refuses it. */
  ok = tiletagReportFallbacks(gemm, str("gfx942"));
  printf("fallbacks: pipelined gemm on gfx942: %d\n",
         mlirLogicalResultIsSuccess(ok));
  mlirContextDetachDiagnosticHandler(ctx, id);
  mlirModuleDestroy(naive);
}

static void transform(MlirContext ctx, const char *examples) {
  MlirModule payload = parseFile(ctx, examples, "naive/gemm.mlir");
  MlirModule script = parseFile(ctx, examples, "scripts/gemm.mlir");
  MlirLogicalResult applied = tiletagApplyTransformScript(payload, script);
  MlirOperation gemm = tiletagModuleLookupKernel(payload, str("gemm"));
  TileTagVerdict v = tiletagCheckKernel(gemm, tiletagCheckOptionsGetDefault());
  printf("transform: applied %d, the result: %s\n",
         mlirLogicalResultIsSuccess(applied),
         tiletagVerdictIsProved(v) ? "proved" : "NOT proved");
  tiletagVerdictDestroy(v);
  /* The same script again: its loop is no longer a plain K loop. */
  applied = tiletagApplyTransformScript(payload, script);
  printf("transform: a failing script: applied %d\n",
         mlirLogicalResultIsSuccess(applied));
  mlirModuleDestroy(script);
  mlirModuleDestroy(payload);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s EXAMPLES-DIR BROKEN-GEMM.mlir\n", argv[0]);
    return 2;
  }
  printRef("TileTag ", tiletagGetVersion());
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  tiletagRegisterAllDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  tiletagRegisterPasses();
  mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, NULL, NULL);

  MlirModule module = parseFile(ctx, argv[1], "gemm.mlir");
  walkKernels(module);

  verify(module, "verify gemm.mlir");

  MlirModule broken = mlirModuleCreateParseFromFile(ctx, str(argv[2]));
  verify(broken, "verify broken");
  mlirModuleDestroy(broken);

  estimate(module);
  oracle(module);

  size_t bytes = 0;
  MlirLogicalResult compiled = tiletagCompileCUDA(
      module, str("sm_90a"), str("isa"), false, countBytes, &bytes);
  printf("compile: %d, %zu bytes of PTX\n",
         mlirLogicalResultIsSuccess(compiled), bytes);
  char magic[5] = {0};
  compiled = tiletagCompileCUDA(module, str("sm_90a"), str("bin"), false,
                                firstBytes, magic);
  printf("compile bin: %d, starts with %s\n",
         mlirLogicalResultIsSuccess(compiled),
         memcmp(magic, "\x7f" "ELF", 4) ? "no ELF header" : "an ELF header");
  compiled = tiletagCompileCUDA(module, str("sm_90a"), str("sass"), false,
                                countBytes, &bytes);
  printf("compile sass: %d\n", mlirLogicalResultIsSuccess(compiled));
  /* The pipelined Hopper GEMM's rings do not fit an AMD workgroup's LDS. */
  compiled = tiletagCompileROCM(module, str("gfx942"), str("isa"), false,
                                countBytes, &bytes);
  printf("compile gfx942: %d\n", mlirLogicalResultIsSuccess(compiled));

  fallbacks(ctx, module, argv[1]);
  transform(ctx, argv[1]);

  /* The module prints as tiletag-opt prints it. */
  MlirOperation ref = tiletagModuleLookupKernel(module, str("gemm_reference"));
  printf("print: ");
  mlirOperationPrint(ref, printString, stdout);
  printf("\n");
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  printf("done\n");
  return 0;
}
