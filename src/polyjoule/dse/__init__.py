"""polyjoule.dse"""
