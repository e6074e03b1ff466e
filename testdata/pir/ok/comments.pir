/* Block comments anywhere whitespace may go: before the first item,
   across lines, between tokens, and holding text that would not lex
   ("unterminated, a stray ' quote, // and /* nested openers). */
target mk2(/* tiles */ tiles_per_ipu = 2)

var a: float[4] /* trailing */
var b: float[4]
map a -> tile 0 // a line comment after /* a block */ one
map b -> /**/ tile 1

compute_set cs {
  vertex Scale<float> { k = /* half */ 0.5, data = a }
}

/***/ program main { /* empty *//* twice */ copy a -> b execute cs }
