"""polyjoule.mapper"""
