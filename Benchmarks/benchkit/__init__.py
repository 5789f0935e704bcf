"""Helpers of Benchmarks/compare.py: measuring children, the impairment relay, an RTP tap in
front of the receiver, GStreamer receivers, the senders under test, frame matching, plots."""
