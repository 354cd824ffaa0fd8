enum op {
	OP_A,
	OP_B,

	/* this goes last */
	OP_LAST,
};
