#include "app/headless/replay.h"

#include <omp.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "sim/session/session_replay.h"
#include "sim/water/simulation.h"
#include "util/stop_signals.h"

namespace tp {

int run_replay(const std::string& path, int threads) {
  SessionContents session;
  try {
    session = read_session(path);
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "tidepool: %s\n", e.what());
    return 2;
  }
  catch_stop_signals();
  // The Start record's threads: the steps' sums are in that order (a replay on others
  // may round otherwise).
  int recorded = 0;
  std::string scene, ignored;
  session_read_start(session.records.front().payload, &recorded, &scene, &ignored);
  const int use = threads > 0 ? threads : recorded > 0 ? recorded : omp_get_max_threads();
  omp_set_num_threads(use);
  std::fprintf(stderr, "tidepool: replaying %s (scene %s, recorded on %d step threads, replayed on %d)%s\n",
               path.c_str(), scene.empty() ? "unnamed" : scene.c_str(), recorded, use,
               recorded > 0 && use != recorded ? ": on other threads the replay may depart from it" : "");
  std::unique_ptr<Simulation> sim = make_simulation(BackendKind::Cpu);
  const auto start = std::chrono::steady_clock::now();
  auto last_line = start;
  ReplayOptions options;
  options.after_steps = [&](Simulation& s, uint64_t step) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_line >= std::chrono::seconds(1)) {
      std::fprintf(stderr, "tidepool: replay: step %llu, t = %.3f s\n", static_cast<unsigned long long>(step),
                   s.simulated_time());
      last_line = now;
    }
    return !stop_signal();
  };
  ReplayReport report;
  try {
    report = replay_session(*sim, session, options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tidepool: the replay of %s stopped: %s\n", path.c_str(), e.what());
    return 2;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("tidepool: %s (%.1f s of wall time)\n", replay_summary(report, sim->simulated_time()).c_str(), wall);
  if (stop_signal()) return 130;
  return report.mismatches > 0 ? 1 : 0;
}

}  // namespace tp
