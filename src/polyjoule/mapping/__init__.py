"""polyjoule.mapping"""
