target mk1
target mk2
