"""polyjoule.arch"""
