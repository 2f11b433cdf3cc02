runDecimationBench()
