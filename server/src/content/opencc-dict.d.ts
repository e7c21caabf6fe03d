/** OpenCC's traditional → simplified character table: "繁 简|…" pairs (opencc-js ships it as a string). */
declare module 'opencc-js/dict/TSCharacters' {
  const table: string;
  export default table;
}
