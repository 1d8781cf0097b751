"""polyjoule.tinytpu"""
