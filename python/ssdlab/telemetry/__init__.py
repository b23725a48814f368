"""Drive and host telemetry sampled beside a measurement on a real drive (sampler.py)."""
