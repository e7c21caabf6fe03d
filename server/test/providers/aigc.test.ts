import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { labelledXmp, readAigc, TC260_NAMESPACE } from '../../src/images/aigc.js';
import { normalizeImage } from '../../src/images/normalize.js';

const label = { producer: 'qwen', produceId: 'task:3:gen:1:image:C:2', propagator: '小红书运营部 <A&B>', propagateId: 'workspace:4/task:3:gen:1:image:C:2' };

/** The packet of GB 45438's implicit label, composed and merged with what a provider wrote, read back from an encoded image. */
describe('the AIGC XMP label', () => {
  it('survives names with markup characters and Chinese, written by sharp and read back', async () => {
    const input = await sharp({ create: { width: 600, height: 800, channels: 3, background: '#c0a080' } }).png().toBuffer();
    const out = await normalizeImage(input, { aigc: label });
    const meta = await sharp(out.data).metadata();
    expect(readAigc(meta.xmp)).toEqual({
      Label: '1',
      ContentProducer: 'qwen',
      ProduceID: label.produceId,
      ReservedCode1: '',
      ContentPropagator: '小红书运营部 <A&B>',
      PropagateID: label.propagateId,
      ReservedCode2: '',
    });
  });

  it('merges into a provider label bound to another prefix, keeping its producer fields and its other properties', () => {
    const theirs = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:aigc="${TC260_NAMESPACE}" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>model</dc:creator><aigc:AIGC>{"Label":"1","ContentProducer":"9133","ProduceID":"wanx-1","ContentPropagator":"","PropagateID":""}</aigc:AIGC></rdf:Description></rdf:RDF></x:xmpmeta>`;
    const merged = labelledXmp(theirs, label);
    expect(merged.match(/:AIGC>/g)).toHaveLength(2);
    expect(merged).toContain('<dc:creator>model</dc:creator>');
    expect(readAigc(merged)).toMatchObject({ Label: '1', ContentProducer: '9133', ProduceID: 'wanx-1', ContentPropagator: label.propagator, PropagateID: label.propagateId });
  });

  it('fills a provider AIGC field it cannot read instead of writing a second one', () => {
    const broken = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:TC260="${TC260_NAMESPACE}"><TC260:AIGC>Label=1</TC260:AIGC></rdf:Description></rdf:RDF></x:xmpmeta>`;
    const merged = labelledXmp(broken, label);
    expect(merged.match(/:AIGC>/g)).toHaveLength(2);
    expect(readAigc(merged)).toMatchObject({ Label: '1', ContentProducer: 'qwen', ContentPropagator: label.propagator });
  });

  it('writes a packet of its own when the provider sent none, or something that is not RDF', () => {
    for (const existing of [undefined, '', 'not xmp at all']) {
      const packet = labelledXmp(existing, label);
      expect(packet.startsWith('<?xpacket begin=')).toBe(true);
      expect(packet).not.toContain('not xmp');
      expect(readAigc(packet)?.ContentProducer).toBe('qwen');
    }
  });
});
