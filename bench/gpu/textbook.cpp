// The textbook baseline's host side: CSR pattern, cuSPARSE SpMV and cuBLAS vector operations, α
// and β computed on the host from dot products read back every iteration. Every CUDA, cuSPARSE and
// cuBLAS call is checked; nothing here exits or throws.
#include "bench/gpu/textbook.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include "bench/gpu/textbook_kernels.h"

namespace hooke::bench {

namespace {

Status cudaFailed(cudaError_t e, const char* what) {
  return Status::error(std::string(what) + ": " + cudaGetErrorName(e) + " (" +
                       cudaGetErrorString(e) + ")");
}

#define TB_CUDA(call)                                                  \
  do {                                                                 \
    cudaError_t tb_error_ = (call);                                    \
    if (tb_error_ != cudaSuccess) return cudaFailed(tb_error_, #call); \
  } while (0)

#define TB_CUSPARSE(call)                                                                   \
  do {                                                                                      \
    cusparseStatus_t tb_status_ = (call);                                                   \
    if (tb_status_ != CUSPARSE_STATUS_SUCCESS) {                                            \
      return Status::error(std::string(#call) + ": " + cusparseGetErrorString(tb_status_)); \
    }                                                                                       \
  } while (0)

#define TB_CUBLAS(call)                                              \
  do {                                                               \
    cublasStatus_t tb_status_ = (call);                              \
    if (tb_status_ != CUBLAS_STATUS_SUCCESS) {                       \
      return Status::error(std::string(#call) + ": cuBLAS status " + \
                           std::to_string(int(tb_status_)));         \
    }                                                                \
  } while (0)

#define TB_TRY(expr)                \
  do {                              \
    ::hooke::Status tb_s_ = (expr); \
    if (!tb_s_) return tb_s_;       \
  } while (0)

template <typename T>
Status upload(T** device, const std::vector<T>& host, cudaStream_t stream) {
  TB_CUDA(
      cudaMalloc(reinterpret_cast<void**>(device), std::max<size_t>(1, host.size()) * sizeof(T)));
  if (!host.empty()) {
    TB_CUDA(cudaMemcpyAsync(*device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice,
                            stream));
  }
  return Status::ok();
}

}  // namespace

struct TextbookCg::Impl {
  cudaStream_t stream = nullptr;
  cudaEvent_t events[4] = {nullptr, nullptr, nullptr, nullptr};
  cusparseHandle_t sparse = nullptr;
  cublasHandle_t blas = nullptr;
  cusparseSpMatDescr_t matrix = nullptr;
  cusparseDnVecDescr_t vec_p = nullptr, vec_q = nullptr;
  void* spmv_buffer = nullptr;
  std::vector<void*> allocations;

  uint32_t particles = 0;
  int rows = 0;
  int64_t nnz = 0;
  TextbookDevice device;
  int* col_index = nullptr;
  float* x[2] = {nullptr, nullptr};
  float* v[2] = {nullptr, nullptr};
  float *dv = nullptr, *r = nullptr, *z = nullptr, *p = nullptr, *q = nullptr;
  int current = 0;

  ~Impl() { release(); }

  void release() {
    if (stream) cudaStreamSynchronize(stream);
    if (vec_p) cusparseDestroyDnVec(vec_p);
    if (vec_q) cusparseDestroyDnVec(vec_q);
    if (matrix) cusparseDestroySpMat(matrix);
    vec_p = vec_q = nullptr;
    matrix = nullptr;
    for (void* a : allocations)
      cudaFree(a);
    allocations.clear();
    if (spmv_buffer) cudaFree(spmv_buffer);
    spmv_buffer = nullptr;
    if (sparse) cusparseDestroy(sparse);
    if (blas) cublasDestroy(blas);
    sparse = nullptr;
    blas = nullptr;
    for (cudaEvent_t& e : events) {
      if (e) cudaEventDestroy(e);
      e = nullptr;
    }
    if (stream) cudaStreamDestroy(stream);
    stream = nullptr;
    cudaGetLastError();
  }

  template <typename T>
  Status put(T** device_ptr, const std::vector<T>& host) {
    TB_TRY(upload(device_ptr, host, stream));
    allocations.push_back(*device_ptr);
    return Status::ok();
  }
  Status vector(float** device_ptr, size_t count) {
    TB_CUDA(cudaMalloc(reinterpret_cast<void**>(device_ptr), std::max<size_t>(1, count) * 4));
    allocations.push_back(*device_ptr);
    TB_CUDA(cudaMemsetAsync(*device_ptr, 0, std::max<size_t>(1, count) * 4, stream));
    return Status::ok();
  }

  float dot(const float* a, const float* b, Status* status) {
    float out = 0.0f;
    cublasStatus_t s = cublasSdot(blas, rows, a, 1, b, 1, &out);  // host pointer mode: waits
    if (s != CUBLAS_STATUS_SUCCESS) *status = Status::error("cublasSdot failed");
    return out;
  }
};

TextbookCg::TextbookCg() : impl_(std::make_unique<Impl>()) {}
TextbookCg::~TextbookCg() = default;

size_t TextbookCg::nonzeros() const {
  return size_t(impl_->nnz);
}

Status TextbookCg::load(const Model& model, const State& state) {
  Impl& m = *impl_;
  m.release();
  const size_t n = model.particleCount(), springs = model.springCount();
  if (3 * n > size_t(INT32_MAX)) return Status::error("textbook: too many particles");
  TB_CUDA(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking));
  for (cudaEvent_t& e : m.events)
    TB_CUDA(cudaEventCreate(&e));
  TB_CUSPARSE(cusparseCreate(&m.sparse));
  TB_CUSPARSE(cusparseSetStream(m.sparse, m.stream));
  TB_CUBLAS(cublasCreate(&m.blas));
  TB_CUBLAS(cublasSetStream(m.blas, m.stream));
  TB_CUBLAS(cublasSetPointerMode(m.blas, CUBLAS_POINTER_MODE_HOST));

  // per particle: incident springs (in spring order) and sorted unique block columns incl. itself
  std::vector<uint32_t> incident_start(n + 1, 0);
  for (const glm::uvec2& e : model.spring_ends) {
    ++incident_start[e.x + 1];
    ++incident_start[e.y + 1];
  }
  for (size_t i = 0; i < n; ++i)
    incident_start[i + 1] += incident_start[i];
  std::vector<TextbookIncident> incidents(2 * springs);
  {
    std::vector<uint32_t> fill(incident_start.begin(), incident_start.end() - 1);
    for (size_t s = 0; s < springs; ++s) {
      const glm::uvec2 e = model.spring_ends[s];
      incidents[fill[e.x]++] = TextbookIncident{uint32_t(s), e.y, 0u, 0u};
      incidents[fill[e.y]++] = TextbookIncident{uint32_t(s), e.x, 1u, 0u};
    }
  }
  std::vector<uint32_t> self_slot(n);
  std::vector<int> row_offset(3 * n + 1, 0);
  std::vector<uint32_t> columns;  // block columns of all particles, concatenated
  std::vector<uint32_t> column_start(n + 1, 0);
  std::vector<uint32_t> cols;
  for (size_t i = 0; i < n; ++i) {
    cols.clear();
    cols.push_back(uint32_t(i));
    for (uint32_t e = incident_start[i]; e < incident_start[i + 1]; ++e)
      cols.push_back(incidents[e].other);
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (uint32_t e = incident_start[i]; e < incident_start[i + 1]; ++e) {
      incidents[e].slot =
          uint32_t(std::lower_bound(cols.begin(), cols.end(), incidents[e].other) - cols.begin());
    }
    self_slot[i] = uint32_t(std::lower_bound(cols.begin(), cols.end(), uint32_t(i)) - cols.begin());
    column_start[i + 1] = column_start[i] + uint32_t(cols.size());
    columns.insert(columns.end(), cols.begin(), cols.end());
  }
  int64_t nnz = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t width = 3 * int64_t(column_start[i + 1] - column_start[i]);
    for (int a = 0; a < 3; ++a) {
      row_offset[3 * i + a] = int(nnz);
      nnz += width;
    }
  }
  if (nnz > int64_t(INT32_MAX)) return Status::error("textbook: matrix too large for 32-bit CSR");
  row_offset[3 * n] = int(nnz);
  std::vector<int> col_index(static_cast<size_t>(nnz));
  {
    size_t at = 0;
    for (size_t i = 0; i < n; ++i) {
      for (int a = 0; a < 3; ++a) {
        for (uint32_t c = column_start[i]; c < column_start[i + 1]; ++c) {
          for (int k = 0; k < 3; ++k)
            col_index[at++] = int(3 * columns[c] + uint32_t(k));
        }
      }
    }
  }
  m.particles = uint32_t(n);
  m.rows = int(3 * n);
  m.nnz = nnz;

  std::vector<float> free_mask(n), packed_x(3 * n), packed_v(3 * n);
  for (size_t i = 0; i < n; ++i) {
    free_mask[i] = model.pinned[i] ? 0.0f : 1.0f;
    for (int a = 0; a < 3; ++a) {
      packed_x[3 * i + a] = state.x[i][a];
      packed_v[3 * i + a] = model.pinned[i] ? 0.0f : state.v[i][a];
    }
  }
  std::vector<uint2> ends(springs);
  for (size_t s = 0; s < springs; ++s)
    ends[s] = uint2{model.spring_ends[s].x, model.spring_ends[s].y};

  TextbookDevice& d = m.device;
  d = TextbookDevice{};
  d.particles = uint32_t(n);
  float* mass = nullptr;
  float* mask = nullptr;
  uint32_t* starts = nullptr;
  TextbookIncident* incs = nullptr;
  uint32_t* selfs = nullptr;
  int* offsets = nullptr;
  uint2* ends_d = nullptr;
  float *rest = nullptr, *stiffness = nullptr, *damping = nullptr;
  TB_TRY(m.put(&mass, model.mass));
  TB_TRY(m.put(&mask, free_mask));
  TB_TRY(m.put(&starts, incident_start));
  TB_TRY(m.put(&incs, incidents));
  TB_TRY(m.put(&selfs, self_slot));
  TB_TRY(m.put(&offsets, row_offset));
  TB_TRY(m.put(&ends_d, ends));
  TB_TRY(m.put(&rest, model.rest_length));
  TB_TRY(m.put(&stiffness, model.stiffness));
  TB_TRY(m.put(&damping, model.damping));
  TB_TRY(m.put(&m.col_index, col_index));
  d.mass = mass;
  d.free_mask = mask;
  d.incident_start = starts;
  d.incidents = incs;
  d.self_slot = selfs;
  d.row_offset = offsets;
  d.ends = ends_d;
  d.rest = rest;
  d.stiffness = stiffness;
  d.damping = damping;
  d.gravity = model.gravity;
  d.drag = model.drag;
  TB_TRY(m.vector(&d.values, size_t(nnz)));
  TB_TRY(m.vector(&d.rhs, 3 * n));
  TB_TRY(m.vector(&d.inv_diag, 3 * n));
  for (int k = 0; k < 2; ++k) {
    TB_TRY(m.put(&m.x[k], packed_x));
    TB_TRY(m.put(&m.v[k], packed_v));
  }
  TB_TRY(m.vector(&m.dv, 3 * n));
  TB_TRY(m.vector(&m.r, 3 * n));
  TB_TRY(m.vector(&m.z, 3 * n));
  TB_TRY(m.vector(&m.p, 3 * n));
  TB_TRY(m.vector(&m.q, 3 * n));

  TB_CUSPARSE(cusparseCreateCsr(&m.matrix, m.rows, m.rows, nnz, const_cast<int*>(offsets),
                                m.col_index, d.values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  TB_CUSPARSE(cusparseCreateDnVec(&m.vec_p, m.rows, m.p, CUDA_R_32F));
  TB_CUSPARSE(cusparseCreateDnVec(&m.vec_q, m.rows, m.q, CUDA_R_32F));
  const float one = 1.0f, zero = 0.0f;
  size_t buffer_bytes = 0;
  TB_CUSPARSE(cusparseSpMV_bufferSize(m.sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m.matrix,
                                      m.vec_p, &zero, m.vec_q, CUDA_R_32F,
                                      CUSPARSE_SPMV_ALG_DEFAULT, &buffer_bytes));
  TB_CUDA(cudaMalloc(&m.spmv_buffer, std::max<size_t>(buffer_bytes, 16)));
  TB_CUDA(cudaStreamSynchronize(m.stream));
  m.current = 0;
  return Status::ok();
}

Status TextbookCg::reset(const Model& model, const State& state) {
  Impl& m = *impl_;
  if (!m.stream || state.x.size() != m.particles || state.v.size() != m.particles) {
    return Status::error("textbook: reset does not match the loaded model");
  }
  std::vector<float> packed_x(3 * size_t(m.particles)), packed_v(3 * size_t(m.particles));
  for (size_t i = 0; i < m.particles; ++i) {
    for (int a = 0; a < 3; ++a) {
      packed_x[3 * i + a] = state.x[i][a];
      packed_v[3 * i + a] = model.pinned[i] ? 0.0f : state.v[i][a];
    }
  }
  for (int k = 0; k < 2; ++k) {
    TB_CUDA(cudaMemcpyAsync(m.x[k], packed_x.data(), packed_x.size() * sizeof(float),
                            cudaMemcpyHostToDevice, m.stream));
    TB_CUDA(cudaMemcpyAsync(m.v[k], packed_v.data(), packed_v.size() * sizeof(float),
                            cudaMemcpyHostToDevice, m.stream));
  }
  TB_CUDA(cudaStreamSynchronize(m.stream));
  m.current = 0;
  return Status::ok();
}

// Jacobi-preconditioned CG, as NVIDIA's conjugateGradient sample runs it: every scalar on the
// host, each dot product a round trip.
//   r = b, z = D⁻¹ r, p = z;  per iteration: q = A p, α = r·z / p·q, Δv += α p, r −= α q,
//   stop when |r| <= tolerance |b|, z = D⁻¹ r, β = (r·z)_new / (r·z), p = z + β p
Status TextbookCg::step(float h, const SolverSettings& settings, StepSample* out) {
  using Clock = std::chrono::steady_clock;
  Impl& m = *impl_;
  if (!m.stream) return Status::error("textbook: nothing loaded");
  *out = StepSample{};
  const auto start = Clock::now();
  const int prev = m.current, cur = m.current ^ 1;
  const int n3 = m.rows;
  TB_CUDA(cudaEventRecord(m.events[0], m.stream));
  TB_CUDA(launchTextbookAssemble(m.stream, m.device, m.x[prev], m.v[prev], h));
  TB_CUDA(cudaEventRecord(m.events[1], m.stream));

  Status status = Status::ok();
  TB_CUDA(cudaMemsetAsync(m.dv, 0, size_t(n3) * sizeof(float), m.stream));
  TB_CUBLAS(cublasScopy(m.blas, n3, m.device.rhs, 1, m.r, 1));
  TB_CUBLAS(cublasSdgmm(m.blas, CUBLAS_SIDE_LEFT, n3, 1, m.r, n3, m.device.inv_diag, 1, m.z, n3));
  const double bb = m.dot(m.device.rhs, m.device.rhs, &status);
  double rz = m.dot(m.r, m.z, &status);
  TB_TRY(status);
  const double target = double(settings.tolerance) * std::sqrt(bb);
  TB_CUBLAS(cublasScopy(m.blas, n3, m.z, 1, m.p, 1));
  int iterations = 0;
  bool converged = bb == 0.0;
  const float one = 1.0f, zero = 0.0f;
  while (!converged && iterations < settings.max_iterations) {
    TB_CUSPARSE(cusparseSpMV(m.sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m.matrix, m.vec_p,
                             &zero, m.vec_q, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, m.spmv_buffer));
    const double pq = m.dot(m.p, m.q, &status);
    TB_TRY(status);
    if (!(pq > 0.0)) break;  // breakdown
    const float alpha = float(rz / pq), minus_alpha = -alpha;
    TB_CUBLAS(cublasSaxpy(m.blas, n3, &alpha, m.p, 1, m.dv, 1));
    TB_CUBLAS(cublasSaxpy(m.blas, n3, &minus_alpha, m.q, 1, m.r, 1));
    const double rr = m.dot(m.r, m.r, &status);
    TB_TRY(status);
    ++iterations;
    if (std::sqrt(rr) <= target) {
      converged = true;
      break;
    }
    TB_CUBLAS(cublasSdgmm(m.blas, CUBLAS_SIDE_LEFT, n3, 1, m.r, n3, m.device.inv_diag, 1, m.z, n3));
    const double rz_new = m.dot(m.r, m.z, &status);
    TB_TRY(status);
    const float beta = float(rz_new / rz);
    rz = rz_new;
    TB_CUBLAS(cublasSscal(m.blas, n3, &beta, m.p, 1));
    TB_CUBLAS(cublasSaxpy(m.blas, n3, &one, m.z, 1, m.p, 1));
  }
  TB_CUDA(cudaEventRecord(m.events[2], m.stream));
  TB_CUDA(launchTextbookCommit(m.stream, m.particles, m.x[prev], m.v[prev], m.dv, m.x[cur],
                               m.v[cur], h));
  TB_CUDA(cudaEventRecord(m.events[3], m.stream));
  TB_CUDA(cudaEventSynchronize(m.events[3]));
  out->wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  float ms = 0.0f;
  TB_CUDA(cudaEventElapsedTime(&ms, m.events[0], m.events[1]));
  out->force_ms = ms;
  TB_CUDA(cudaEventElapsedTime(&ms, m.events[1], m.events[2]));
  out->solve_ms = ms;
  TB_CUDA(cudaEventElapsedTime(&ms, m.events[2], m.events[3]));
  out->commit_ms = ms;
  out->iterations = iterations;
  out->converged = converged;
  m.current = cur;
  return Status::ok();
}

}  // namespace hooke::bench
