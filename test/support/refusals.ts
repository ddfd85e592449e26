/** What `act` throws, for a test to look at its message or fields; fails the test when nothing is thrown. */
export const refusalOf = (act: () => unknown): Error => {
  try {
    act();
  } catch (error) {
    return error as Error;
  }
  throw new Error('nothing was refused');
};
