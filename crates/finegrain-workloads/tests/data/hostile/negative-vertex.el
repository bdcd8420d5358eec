# negative ids
0 1
1 -2
