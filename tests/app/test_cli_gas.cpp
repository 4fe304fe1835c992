// Gas scenes from the command line: --headless --report says the divergence after the
// projection, the solver's iterations and residual and the smoke's mass; --export writes VTK
// images that read back (header, sizes, the smoke where the source is); --bench prints a
// row per scene and grid; options for water are refused by name.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "process.h"

using namespace tp::test;
using json = nlohmann::json;

namespace {

// The density of a legacy binary VTK image (big-endian floats) and its dimensions.
bool read_vtk_density(const std::string& path, int dims[3], std::vector<float>* density, std::string* header_out) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = text.find("LOOKUP_TABLE default\n");
  if (at == std::string::npos) return false;
  *header_out = text.substr(0, at);
  const size_t d = text.find("DIMENSIONS ");
  if (d == std::string::npos || std::sscanf(text.c_str() + d, "DIMENSIONS %d %d %d", &dims[0], &dims[1], &dims[2]) != 3)
    return false;
  const size_t n = size_t(dims[0]) * dims[1] * dims[2];
  const size_t start = at + std::strlen("LOOKUP_TABLE default\n");
  if (text.size() < start + 4 * n) return false;
  density->resize(n);
  for (size_t i = 0; i < n; ++i) {
    const unsigned char* b = reinterpret_cast<const unsigned char*>(text.data() + start + 4 * i);
    const uint32_t bits = uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | uint32_t(b[3]);
    float v;
    std::memcpy(&v, &bits, 4);
    (*density)[i] = v;
  }
  return true;
}

}  // namespace

TEST(CliGas, HeadlessReportSaysTheDivergenceIterationsAndSmoke) {
  const std::string dir = fresh_temp_dir("tidepool_gas_report");
  const ProcessResult r =
      run_command(tidepool() + " --headless --scene plume --cells 24 --time 1 --report " + dir + "/report.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(dir + "/report.json");
  const json report = json::parse(in);
  EXPECT_EQ(report["kind"], "gas");
  // Named as the water's reports name it, without the start line's "backend: ".
  EXPECT_EQ(report["backend"].get<std::string>().rfind("CPU (", 0), 0u) << report["backend"];
  EXPECT_EQ(report["grid"]["cells"], json({16, 24, 16}));
  EXPECT_EQ(report["pressure_solver"], "mgpcg");
  const json& last = report["last_step"];
  EXPECT_GT(double(last["max_divergence_before"]), 1.0) << "the plume's sources and buoyancy stir it";
  EXPECT_LE(double(last["max_divergence_after"]),
            2.0 * double(report["pressure_tolerance"]) * double(last["max_divergence_before"]));
  EXPECT_LE(double(report["run"]["worst_pressure_residual"]), double(report["pressure_tolerance"]));
  EXPECT_GT(double(report["smoke_mass"]), 0.0);
  EXPECT_GE(double(report["simulated_time"]), 1.0);
  EXPECT_TRUE(report["ms_per_phase"].contains("project"));
  EXPECT_GT(double(last["max_speed"]), 0.3) << "hot smoke rises";
}

TEST(CliGas, ExportWritesVtkImagesWithTheSmokeAboveTheSource) {
  const std::string dir = fresh_temp_dir("tidepool_gas_export");
  const ProcessResult r = run_command(tidepool() + " --headless --scene plume --cells 24 --time 1 --export-fps 2 "
                                      "--export " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  int dims[3];
  std::vector<float> first, last;
  std::string header;
  ASSERT_TRUE(read_vtk_density(dir + "/gas_00000.vtk", dims, &first, &header)) << r.output;
  ASSERT_TRUE(read_vtk_density(dir + "/gas_00002.vtk", dims, &last, &header)) << "t = 0, 0.5, 1";
  EXPECT_NE(header.find("DATASET STRUCTURED_POINTS"), std::string::npos) << header;
  EXPECT_NE(header.find("SPACING 0.0625 0.0625 0.0625"), std::string::npos) << header;
  EXPECT_EQ(dims[0], 16);
  EXPECT_EQ(dims[1], 24);
  double at_start = 0.0, total = 0.0, above = 0.0;
  for (float v : first) at_start += v;
  for (int j = 0; j < dims[1]; ++j)
    for (int k = 0; k < dims[2]; ++k)
      for (int i = 0; i < dims[0]; ++i) {
        const float v = last[size_t(i + dims[0] * (j + dims[1] * k))];
        total += v;
        if (j >= 6) above += v;  // well above the burner (its top at 0.22 m, 3.5 cells of 1/16 m)
      }
  EXPECT_EQ(at_start, 0.0) << "no smoke before the first step";
  EXPECT_GT(total, 1.0);
  EXPECT_GT(above, 0.2 * total) << "the smoke has risen";
}

TEST(CliGas, BenchPrintsARowPerSceneAndGrid) {
  const ProcessResult r = run_command(tidepool() + " --bench --scene ink_box,cavity --cells 32,48 --steps 3 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* row : {"ink_box          32x32x1 (2D)", "ink_box          48x48x1 (2D)", "cavity           32x32x1 (2D)",
                          "cavity           48x48x1 (2D)"})
    EXPECT_NE(r.output.find(row), std::string::npos) << row << "\n" << r.output;
  EXPECT_NE(r.output.find("project"), std::string::npos);
}

TEST(CliGas, WaterOptionsAndBadGridsAreRefusedByName) {
  ProcessResult r = run_command(tidepool() + " --headless --scene plume --particles 1000 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--particles is for water scenes; 'plume' is a gas scene (use --cells N"), std::string::npos)
      << r.output;
  r = run_command(tidepool() + " --headless --scene plume --cells 2 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--cells must be a whole number from 4 to 1024, not '2'"), std::string::npos) << r.output;
  r = run_command(tidepool() + " --headless --scene plume --cells 1024 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("more than 256^3; choose fewer"), std::string::npos) << r.output;
  r = run_command(tidepool() + " --headless --scene plume --set vorticity=nan 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("vorticity: 'nan' is not valid"), std::string::npos) << r.output;
  r = run_command(tidepool() + " --bench --scene plume,pool --steps 1 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("gas scenes and water scenes separately"), std::string::npos) << r.output;
  // The window checks the same before it opens (no display needed to be told).
  for (const char* option : {"--particles 1000", "--solver pbf", "--render surface"}) {
    r = run_command("DISPLAY= " + tidepool() + " --scene ink_box " + option + " 2>&1");
    EXPECT_EQ(r.exit_code, 2) << option;
    EXPECT_NE(r.output.find("is for water scenes; 'ink_box' is a gas scene"), std::string::npos) << r.output;
  }
  r = run_command("DISPLAY= " + tidepool() + " --scene ink_box --set vorticity=nan 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("vorticity: 'nan' is not valid"), std::string::npos) << r.output;
}

TEST(CliGas, AGridLargerThanTheMemoryIsRefusedBeforeAllocating) {
  const ProcessResult r =
      run_command("TIDEPOOL_MEMORY_MB=200 " + tidepool() + " --headless --scene plume --cells 160 --steps 1 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("gas scene 'plume': 107x160x107 cells need 472 MB and 200 MB are free; choose fewer cells"),
            std::string::npos)
      << r.output;
}
