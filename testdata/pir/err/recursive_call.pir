function f { call g }
function g { sync call f }
function h { call h }
program main { call f }
