//===- CommandServer.h - many command lines in one loaded tool -*- C++ -*-===//
//
// Part of the TileTag project.
//
// Starting a TileTag tool costs more than most of what tiletag-agent asks of
// it: loading libMLIR and libLLVM (relocations, static initializers) takes
// ~60 ms of CPU, five times per candidate. A tool started with `--serve`
// loads once and then forks a child per command line it reads; the child
// runs the tool's ordinary `main` from the state just before option
// parsing, so every command behaves exactly as the same command run on its
// own, and a crash or a hang takes down only that child.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_COMMANDSERVER_COMMANDSERVER_H
#define TILETAG_COMMANDSERVER_COMMANDSERVER_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::tiletag {

/// The argument that makes a tool serve (the only argument it then takes).
inline constexpr llvm::StringLiteral kServeFlag = "--serve";

/// The help text that documents `--serve`, for the tools' descriptions.
extern const char *const kServeHelp;

/// Serves command lines read from stdin until it is closed; returns the
/// tool's exit status (0, or 2 when stdin or stdout cannot be used). Unless
/// LD_BIND_NOW is set, the tool first executes itself again with it, so
/// that library functions are bound once, not in every child; commands run
/// with the environment the server was given.
///
/// The first line written to stdout is `{"serving":TOOL,"protocol":1}`.
/// Every line read is a JSON object
///   {"argv": [ARG0, ...], "stdout": PATH, "stderr": PATH, "timeout": SECONDS}
/// ("timeout" optional: none). A child forked for it runs `main(argv)` with
/// stdin from /dev/null and stdout and stderr written to the two files, and
/// one line answers: {"exit": STATUS}, {"signal": NUMBER}, {"timeout": true}
/// (the child was killed) or {"error": MESSAGE} (a malformed request; nothing
/// ran). The caller must not have started threads: only the forking one
/// would live on in the child.
int serveCommandLines(llvm::StringRef tool,
                      llvm::function_ref<int(int argc, char **argv)> main);

} // namespace mlir::tiletag

#endif // TILETAG_COMMANDSERVER_COMMANDSERVER_H
