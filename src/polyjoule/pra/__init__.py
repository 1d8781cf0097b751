"""polyjoule.pra"""
