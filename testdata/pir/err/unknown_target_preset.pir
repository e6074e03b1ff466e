target mk3
