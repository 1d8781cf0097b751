"""polyjoule.analysis"""
