import torch
import time

def benchmark_matmul(size, device, num_runs=10):
    """Benchmark matrix multiplication on a given device."""
    a = torch.randn(size, size, device=device)
    b = torch.randn(size, size, device=device)

    # Warm-up run
    _ = a @ b
    if device.type == "cuda":
        torch.cuda.synchronize()

    # Timed runs
    start = time.time()
    for _ in range(num_runs):
        _ = a @ b
    if device.type == "cuda":
        torch.cuda.synchronize()
    elapsed = (time.time() - start) / num_runs
    return elapsed

# Run benchmark
sizes = [256, 1024, 4096]
cpu_device = torch.device("cpu")

print(f"{'Size':>6} | {'CPU (ms)':>10} | {'GPU (ms)':>10} | {'Speedup':>8}")
print("-" * 50)

for size in sizes:
    cpu_time = benchmark_matmul(size, cpu_device) * 1000

    if torch.cuda.is_available():
        gpu_device = torch.device("cuda")
        gpu_time = benchmark_matmul(size, gpu_device) * 1000
        speedup = cpu_time / gpu_time
        print(f"{size:>6} | {cpu_time:>10.2f} | {gpu_time:>10.2f} | {speedup:>7.1f}×")
    else:
        print(f"{size:>6} | {cpu_time:>10.2f} | {'N/A':>10} | {'N/A':>8}")
