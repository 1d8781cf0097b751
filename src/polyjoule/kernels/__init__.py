"""polyjoule.kernels"""
