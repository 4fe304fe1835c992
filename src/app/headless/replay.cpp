#include "app/headless/replay.h"

#include <omp.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "app/headless/headless.h"
#include "app/start/setup.h"
#include "sim/session/session_replay.h"
#include "sim/water/simulation.h"
#include "util/stop_signals.h"

namespace tp {

int run_replay(const std::string& path, int threads, const std::string& backend, const HeadlessOptions& run) {
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
  session_read_start(session.records.front().payload, &recorded, nullptr, &scene, &ignored);
  const int use = threads > 0 ? threads : recorded > 0 ? recorded : omp_get_max_threads();
  omp_set_num_threads(use);
  std::fprintf(stderr, "tidepool: replaying %s (scene %s, recorded on %d step thread%s, replayed on %d)%s\n",
               path.c_str(), scene.empty() ? "unnamed" : scene.c_str(), recorded, recorded == 1 ? "" : "s", use,
               recorded > 0 && use != recorded ? ": on other threads the replay may depart from it" : "");
  std::unique_ptr<Simulation> sim;
  try {
    StartPlan plan;
    plan.backend = backend.empty() ? "cpu" : backend;
    const BackendChoice choice = start_backend(plan);
    if (choice.kind != BackendKind::Cpu || !backend.empty()) std::fprintf(stderr, "tidepool: %s\n", choice.message.c_str());
    sim = make_simulation(choice.kind);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tidepool: %s\n", e.what());
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  const auto wall_seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto last_line = start;
  // --export and --export-mesh: the replayed run's frames (with the bodies' poses), as a
  // headless run of it would have written them.
  HeadlessExports exports;
  std::string export_failure;
  // Writing a frame reads the particles in id order with their densities, which sorts the
  // live arrays by cell between two steps where the recorded run did not: the replay would
  // depart from it. So the frame is written from the state, which is then put back as it
  // was (a restored state continues bit for bit).
  const auto export_frame = [&](Simulation& s) {
    if (!exports.due(s.simulated_time())) return true;
    const SimState before = s.capture();
    const bool ok = exports.record(s, wall_seconds(), &export_failure);
    s.restore(before);
    return ok;
  };
  ReplayOptions options;
  options.after_steps = [&](Simulation& s, uint64_t step) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_line >= std::chrono::seconds(1)) {
      std::fprintf(stderr, "tidepool: replay: step %llu, t = %.3f s\n", static_cast<unsigned long long>(step),
                   s.simulated_time());
      last_line = now;
    }
    if (!export_frame(s)) return false;
    return !stop_signal();
  };
  ReplayReport report;
  try {
    SessionPlayer player(session);
    player.begin(*sim);
    if (!exports.start(run, *sim)) return 2;
    if (!export_frame(*sim)) return 1;  // the first frame
    while (!player.finished()) {
      const uint64_t before = player.step();
      player.advance(*sim, 1);
      if (player.step() > before && !options.after_steps(*sim, player.step())) break;
    }
    report = player.report();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tidepool: the replay of %s stopped: %s\n", path.c_str(), e.what());
    return 2;
  }
  exports.finish(sim->stats().last_dt);
  std::printf("tidepool: %s (%.1f s of wall time)\n", replay_summary(report, sim->simulated_time()).c_str(),
              wall_seconds());
  if (!export_failure.empty()) return 1;
  if (stop_signal()) return 130;
  return replay_departed(report) ? 1 : 0;
}

}  // namespace tp
