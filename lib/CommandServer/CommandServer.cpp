//===- CommandServer.cpp - run many command lines in one loaded tool ------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/CommandServer/CommandServer.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <string>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vector>

using namespace mlir;

const char *const tiletag::kServeHelp =
    "With --serve as its only argument, the tool reads command lines from "
    "stdin\n(one JSON object per line: argv, stdout and stderr files, "
    "timeout in seconds)\nand runs each in a child forked from the loaded "
    "tool, as if started with it;\ntiletag-agent uses this to skip the "
    "start-up cost (docs/Agent.md).\n";

namespace {

/// Set (with LD_BIND_NOW) where the server set LD_BIND_NOW itself.
constexpr const char *kBindNowMarker = "TILETAG_SERVE_SET_LD_BIND_NOW";

/// One request, decoded.
struct Request {
  std::vector<std::string> argv;
  std::string stdoutPath, stderrPath;
  double timeout = 0; // seconds; 0: none
};

std::string decode(llvm::StringRef line, Request &request) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(line);
  if (!value)
    return "not JSON: " + llvm::toString(value.takeError());
  const llvm::json::Object *object = value->getAsObject();
  if (!object)
    return "expected a JSON object";
  const llvm::json::Array *argv = object->getArray("argv");
  if (!argv || argv->empty())
    return "'argv' must be a non-empty array of strings";
  for (const llvm::json::Value &arg : *argv) {
    std::optional<llvm::StringRef> s = arg.getAsString();
    if (!s)
      return "'argv' must be a non-empty array of strings";
    request.argv.push_back(s->str());
  }
  std::optional<llvm::StringRef> out = object->getString("stdout");
  std::optional<llvm::StringRef> err = object->getString("stderr");
  if (!out || !err || out->empty() || err->empty())
    return "'stdout' and 'stderr' must name files";
  request.stdoutPath = out->str();
  request.stderrPath = err->str();
  if (const llvm::json::Value *t = object->get("timeout")) {
    std::optional<double> seconds = t->getAsNumber();
    if (!seconds || *seconds <= 0)
      return "'timeout' must be a positive number of seconds";
    request.timeout = *seconds;
  }
  for (const auto &[key, v] : *object)
    if (key != "argv" && key != "stdout" && key != "stderr" && key != "timeout")
      return "unknown field '" + key.str() + "'";
  return "";
}

bool writeAll(int fd, llvm::StringRef text) {
  while (!text.empty()) {
    ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    text = text.drop_front(n);
  }
  return true;
}

bool answer(int fd, llvm::json::Object object) {
  std::string line;
  llvm::raw_string_ostream os(line);
  os << llvm::json::Value(std::move(object)) << "\n";
  return writeAll(fd, line);
}

/// Runs in the child: never returns.
[[noreturn]] void runChild(const Request &request, int protocolIn,
                           int protocolOut,
                           llvm::function_ref<int(int, char **)> main) {
  ::close(protocolIn);
  ::close(protocolOut);
  // The command sees the environment the server was started with.
  if (::getenv(kBindNowMarker)) {
    ::unsetenv("LD_BIND_NOW");
    ::unsetenv(kBindNowMarker);
  }
  int in = ::open("/dev/null", O_RDONLY);
  int out = ::open(request.stdoutPath.c_str(),
                   O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int err = ::open(request.stderrPath.c_str(),
                   O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (in < 0 || out < 0 || err < 0 || ::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 ||
      ::dup2(err, 2) < 0)
    ::_exit(127);
  std::vector<std::string> storage = request.argv;
  std::vector<char *> argv;
  for (std::string &arg : storage)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  int status = main(static_cast<int>(storage.size()), argv.data());
  // What the tool wrote is flushed; tearing down its static objects (half
  // the cost of a short command) is left to the kernel.
  llvm::outs().flush();
  llvm::errs().flush();
  std::fflush(nullptr);
  ::_exit(status);
}

double seconds() {
  timespec now;
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + now.tv_nsec * 1e-9;
}

/// Whether `child` exits within `timeout` seconds; it is left to be reaped.
bool exitsWithin(pid_t child, double timeout) {
  double end = seconds() + timeout;
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, child, 0));
  bool exited = false;
  for (double left; !exited && (left = end - seconds()) > 0;) {
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      exited =
          ::poll(&p, 1, static_cast<int>(std::min(left, 1e6) * 1000) + 1) > 0;
      continue;
    }
    // Kernels before 5.3 have no pidfd: look every millisecond.
    siginfo_t info{};
    exited = ::waitid(P_PID, child, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
             info.si_pid == child;
    timespec ms{0, 1000000};
    if (!exited)
      ::nanosleep(&ms, nullptr);
  }
  if (pidfd >= 0)
    ::close(pidfd);
  return exited;
}

/// Waits for `child` up to `timeout` seconds (0: no limit); the answer.
llvm::json::Object waitFor(pid_t child, double timeout) {
  bool killed = timeout > 0 && !exitsWithin(child, timeout);
  if (killed)
    ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (killed)
    return llvm::json::Object{{"timeout", true}};
  if (WIFSIGNALED(status))
    return llvm::json::Object{{"signal", WTERMSIG(status)}};
  return llvm::json::Object{{"exit", WEXITSTATUS(status)}};
}

} // namespace

int tiletag::serveCommandLines(llvm::StringRef tool,
                               llvm::function_ref<int(int, char **)> main) {
  // The dynamic linker binds a library function at its first call, and in
  // a forked child every first call is a first call again: ~7 % of the CPU
  // of an agent's candidate. Bound once in the server instead: it starts
  // again with LD_BIND_NOW (or goes on lazily if that fails).
  if (!::getenv("LD_BIND_NOW")) {
    ::setenv("LD_BIND_NOW", "1", 1);
    ::setenv(kBindNowMarker, "1", 1);
    std::string name = tool.str(), flag = kServeFlag.str();
    char *args[] = {name.data(), flag.data(), nullptr};
    ::execv("/proc/self/exe", args);
    ::unsetenv("LD_BIND_NOW");
    ::unsetenv(kBindNowMarker);
  }
  // The protocol runs on private copies of stdin and stdout, so that nothing
  // the tool's libraries print can mix with it.
  int protocolIn = ::fcntl(0, F_DUPFD_CLOEXEC, 3);
  int protocolOut = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
  if (protocolIn < 0 || protocolOut < 0)
    return 2;
  if (!answer(protocolOut,
              llvm::json::Object{{"serving", tool.str()}, {"protocol", 1}}))
    return 2;
  std::string buffer;
  char chunk[65536];
  while (true) {
    size_t newline = buffer.find('\n');
    if (newline == std::string::npos) {
      ssize_t n = ::read(protocolIn, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return 0; // stdin closed: the client is done
      buffer.append(chunk, n);
      continue;
    }
    std::string line = buffer.substr(0, newline);
    buffer.erase(0, newline + 1);
    if (llvm::StringRef(line).trim().empty())
      continue;
    Request request;
    std::string error = decode(line, request);
    llvm::json::Object reply;
    if (!error.empty()) {
      reply = llvm::json::Object{{"error", error}};
    } else {
      pid_t child = ::fork();
      if (child == 0)
        runChild(request, protocolIn, protocolOut, main);
      reply = child < 0
                  ? llvm::json::Object{{"error", std::string("fork: ") +
                                                     std::strerror(errno)}}
                  : waitFor(child, request.timeout);
    }
    if (!answer(protocolOut, std::move(reply)))
      return 2;
  }
}
